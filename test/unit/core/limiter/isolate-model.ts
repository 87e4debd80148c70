import { Counter, LeaseBook, type LeaseCall, type Limit, type Verdict } from "../../../../src/core/limiter/index.ts";

/** How one request of the client ended: admitted (and by whom), refused, or failed (its answer lost). */
export type Outcome =
  | { readonly admitted: true; readonly by: "lease" | "object" }
  | { readonly admitted: false; readonly failed: boolean; readonly retryInMs?: number; readonly waitMs?: number };

/**
 * Runs the give-backs of `models` due at or before object time `until`, in time order: what the
 * gateway's timers do between the client's requests.
 */
export function runDue(models: readonly IsolateModel[], counter: () => Counter, name: string, limit: Limit, until: number): void {
  for (;;) {
    let next: IsolateModel | undefined;
    for (const model of models) {
      const due = model.due();
      if (due !== undefined && due <= until && (next === undefined || due < next.due()!)) next = model;
    }
    if (!next) return;
    next.giveBack(counter(), name, limit, next.due()!);
  }
}

/**
 * One request of the client through `model` at object time `now`, as the gateway answers it: a
 * request told to wait for lent units asks again then (the give-backs due meanwhile run first).
 * Returns the outcome and the object time it was answered.
 */
export function sendAndWait(
  models: readonly IsolateModel[],
  model: IsolateModel,
  counter: () => Counter,
  name: string,
  limit: Limit,
  now: number,
  lost = false,
): { outcome: Outcome; at: number } {
  runDue(models, counter, name, limit, now);
  let at = now;
  let waited = 0;
  for (;;) {
    const outcome = model.send(counter(), name, limit, at, lost);
    if (outcome.admitted || outcome.waitMs === undefined || waited + outcome.waitMs > 12_000) return { outcome, at };
    waited += outcome.waitMs;
    at += outcome.waitMs;
    runDue(models, counter, name, limit, at);
  }
}

/**
 * One isolate's side of counting, as src/gateway/counting.ts runs it, minus the platform: its
 * lease book, on its own clock (`skewMs` ahead of the object's), calling one counter. Calls take
 * no time. A lease about to run out is renewed by a call right after the request it answered; each
 * lease is given back by a call at its end (`due`/`giveBack`, which the scenario runs at that
 * moment); a request the object tells to wait is asked again when told (`send` returns the wait).
 * A lost answer (the object decided, the isolate never heard) fails the request closed
 * (FAIL_MODE=closed: a 503, never an uncounted admission); when the call asked for a lease, a call
 * right after it names the newest lease the isolate heard of, so the object takes back what it
 * granted unheard; the lease it gave back goes again with that call, as the book keeps it until
 * answered.
 */
export class IsolateModel {
  readonly book: LeaseBook;
  readonly skewMs: number;
  /** Object time at which this isolate's newest lease ends, if one is out. */
  #endsAt: number | undefined;
  /** The last call asked for a lease. */
  #asked = false;

  constructor(caller: string, skewMs = 0) {
    this.book = new LeaseBook({ caller });
    this.skewMs = skewMs;
  }

  /** Object time of the give-back call this isolate has due, if any. */
  due(): number | undefined {
    return this.#endsAt;
  }

  /** The give-back at object time `now` (its lease's end): a call returning what ended, renewing it if it was in use. */
  giveBack(counter: Counter, name: string, limit: Limit, now: number): void {
    this.#endsAt = undefined;
    const local = now + this.skewMs;
    if (this.book.owes(name, local)) this.#call(counter, name, limit, now, 0, "give-back");
  }

  /** One request at object time `now`, deciding on the lease or calling `counter`; `lost`: the answer never arrives. */
  send(counter: Counter, name: string, limit: Limit, now: number, lost = false): Outcome {
    const local = now + this.skewMs;
    if (this.book.admit(name, limit, local)) {
      if (this.book.renewalDue(name, local, 20)) this.#call(counter, name, limit, now, 0, "renew");
      return { admitted: true, by: "lease" };
    }
    const verdict = this.#call(counter, name, limit, now, 1, "hits", lost);
    if (!verdict) {
      if (this.#asked) this.#call(counter, name, limit, now, 0, "give-back");
      return { admitted: false, failed: true };
    }
    if (verdict.allowed) return { admitted: true, by: "object" };
    return { admitted: false, failed: false, retryInMs: verdict.retryInMs, ...(verdict.waitMs !== undefined && { waitMs: verdict.waitMs }) };
  }

  #call(counter: Counter, name: string, limit: Limit, now: number, hits: number, kind: LeaseCall, lost = false): Verdict | undefined {
    const local = now + this.skewMs;
    const request = this.book.request(name, local, kind);
    this.#asked = request.want > 0;
    const { verdicts, lease } = counter.decide(limit, hits, now, { lease: request });
    if (lost) return undefined;
    this.book.accept(name, limit, lease, local, request);
    if (lease) this.#endsAt = now + lease.spanMs + 1;
    return verdicts[0];
  }
}

/**
 * Arrival times thinned so that no window of `intervalMs` holds more than `most` of them: a client
 * that stays within `most` whatever the isolates do (each arrival is kept only while fewer than
 * `most` kept ones are in its trailing window).
 */
export function within(times: readonly number[], intervalMs: number, most: number): number[] {
  const kept: number[] = [];
  let first = 0;
  for (const t of times) {
    while (first < kept.length && kept[first]! <= t - intervalMs) first++;
    if (kept.length - first < most) kept.push(t);
  }
  return kept;
}
