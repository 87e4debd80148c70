import { Counter, LeaseBook, type Limit } from "../../../../src/core/limiter/index.ts";

/** How one request of the client ended: admitted (and by whom), refused, or failed (its answer lost). */
export type Outcome = { readonly admitted: true; readonly by: "lease" | "object" } | { readonly admitted: false; readonly failed: boolean; readonly retryInMs?: number };

/**
 * One isolate's side of counting, as src/gateway/counting.ts runs it, minus the platform: its
 * lease book, on its own clock (`skewMs` ahead of the object's), calling one counter. A lost answer
 * (the object decided, the isolate never heard) fails the request closed (FAIL_MODE=closed: a 503,
 * never an uncounted admission) and leaves whatever the call returned or granted where the object
 * put it; the lease it gave back goes again with its next call, as the book keeps it until answered.
 */
export class IsolateModel {
  readonly book: LeaseBook;
  readonly skewMs: number;

  constructor(caller: string, skewMs = 0) {
    this.book = new LeaseBook({ caller });
    this.skewMs = skewMs;
  }

  /** One request at object time `now`, deciding on the lease or calling `counter`; `lost`: the answer never arrives. */
  send(counter: Counter, name: string, limit: Limit, now: number, lost = false): Outcome {
    const local = now + this.skewMs;
    if (this.book.admit(name, limit, local)) return { admitted: true, by: "lease" };
    const request = this.book.request(name, local);
    const { verdicts, lease } = counter.decide(limit, 1, now, { lease: request });
    if (lost) return { admitted: false, failed: true };
    this.book.accept(name, limit, lease, local, request);
    const verdict = verdicts[0]!;
    return verdict.allowed ? { admitted: true, by: "object" } : { admitted: false, failed: false, retryInMs: verdict.retryInMs };
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
