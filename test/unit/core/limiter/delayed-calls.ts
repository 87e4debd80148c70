import {
  Counter,
  LeaseBook,
  MemoryCounterStore,
  SETTLE_MS,
  type CounterAnswer,
  type LeaseCall,
  type LeaseRequest,
  type Limit,
} from "../../../../src/core/limiter/index.ts";

/*
 * Isolates calling one counter over a network that delays, reorders and drops calls, on one
 * driven clock, in one process: the real Counter (and its LeaseDesk) on the object's side, the
 * real LeaseBook on each isolate's, and between them the discipline src/gateway/counting.ts keeps
 * (one call in flight per counter and isolate; a call unanswered by its deadline is abandoned, its
 * requests fail closed and, when it asked for a lease, a give-back call follows at once; every
 * lease given back by a call at its end; a lease about to run out renewed by a call of its own).
 * A call abandoned by its isolate may still reach the object afterwards, after the isolate's next
 * call: what the object must never take as the isolate's newest word.
 */

/** What the network does to one call: ms to reach the object and back (Infinity: lost). */
export interface CallFault {
  readonly out: number;
  readonly back: number;
}

/** The client's request, as the isolate holds it while it waits. */
interface Pending {
  /** When the client sent it (global clock). */
  readonly sentAt: number;
  /** How long it has waited for lent units so far. */
  waited: number;
  readonly keep: boolean;
}

interface Call {
  readonly isolate: Isolate;
  readonly request: LeaseRequest;
  readonly hits: readonly Pending[];
  /** Isolate clock at the send (what the LeaseBook measures leases from). */
  readonly sentLocal: number;
  decidedAt?: number;
  answer?: CounterAnswer;
  done: boolean;
}

interface Isolate {
  readonly index: number;
  readonly book: LeaseBook;
  readonly skewMs: number;
  inFlight?: Call;
  queue: Pending[];
  renew: boolean;
  giveBack: boolean;
  /** A call that asked for a lease timed out: a give-back call names the newest lease heard. */
  afterTimeout: boolean;
  giveBackTries: number;
}

export interface SimOptions {
  readonly limit: Limit;
  readonly isolates: number;
  readonly skewMs: number;
  /** The isolate's deadline for a call (COUNTER_TIMEOUT_MS). */
  readonly timeoutMs: number;
  /** Faults, one per call in the order calls are sent (cycled). */
  readonly faults: readonly CallFault[];
  /** Object restarts (global times): memory lost, storage kept. */
  readonly restarts?: readonly number[];
  /**
   * Only the usual restart: an eviction after the object idled for SETTLE_MS (its alarm settled
   * it first, so storage is exact); a restart due at a busier moment is skipped. Otherwise any
   * moment (a crash), after which storage may count more than happened (never less).
   */
  readonly restartsWhenIdle?: boolean;
  /** How a request told to wait is handled: the isolate's own logic (a function of the verdict). */
  readonly maxWaitMs: number;
  /** Told each decision, answer and timeout, to debug a counterexample. */
  readonly trace?: (line: string) => void;
}

/** What happened to the client's requests. */
export interface SimResult {
  /** Global times at which requests were admitted (the object's decision, or the lease's use). */
  readonly admitted: number[];
  /** Requests refused (a 429), with when they were sent, and whether the client meant to stay within 90%. */
  readonly refused: { sentAt: number; keep: boolean; retryInMs: number }[];
  /** Requests that failed (their call abandoned: a 503 under FAIL_MODE=closed). */
  failed: number;
  /** Calls sent to the object. */
  calls: number;
}

const NAME = "k";
const GIVE_BACK_ATTEMPTS = 3;
const GIVE_BACK_RETRY_MS = 1_000 / 6;

/**
 * Runs the client's `arrivals` (global time, isolate index, `keep`: part of the client's 90%) to
 * the end, every call and timer included.
 */
export function simulate(options: SimOptions, arrivals: readonly { at: number; isolate: number; keep: boolean }[]): SimResult {
  const { limit, timeoutMs, faults } = options;
  const store = new MemoryCounterStore();
  let counter = new Counter(store, NAME);
  const events: { at: number; seq: number; run: () => void }[] = [];
  let seq = 0;
  let now = 0;
  const at = (time: number, run: () => void) => {
    const event = { at: time, seq: seq++, run };
    let i = events.length;
    while (i > 0 && (events[i - 1]!.at > time || (events[i - 1]!.at === time && events[i - 1]!.seq > event.seq))) i--;
    events.splice(i, 0, event);
  };
  const result: SimResult = { admitted: [], refused: [], failed: 0, calls: 0 };
  const isolates: Isolate[] = Array.from({ length: options.isolates }, (_, index) => ({
    index,
    book: new LeaseBook({ caller: `i${index}` }),
    skewMs: index % 2 === 0 ? options.skewMs : -options.skewMs,
    queue: [],
    renew: false,
    giveBack: false,
    afterTimeout: false,
    giveBackTries: 0,
  }));
  const local = (isolate: Isolate) => now + isolate.skewMs;

  const send = (isolate: Isolate, kind: LeaseCall, hits: Pending[]) => {
    const fault = faults[result.calls % faults.length] ?? { out: 1, back: 1 };
    result.calls++;
    const call: Call = { isolate, request: isolate.book.request(NAME, local(isolate), kind), hits, sentLocal: local(isolate), done: false };
    isolate.inFlight = call;
    if (Number.isFinite(fault.out))
      at(now + fault.out, () => {
        call.decidedAt = lastDecided = now;
        call.answer = counter.decide(limit, hits.length, now, { lease: call.request });
        options.trace?.(`${now} i${isolate.index} decides ${kind} ${JSON.stringify(call.request)} ${JSON.stringify(call.answer)}`);
        if (Number.isFinite(fault.back)) at(now + fault.back, () => answered(call));
      });
    at(now + timeoutMs, () => timedOut(call));
  };

  const answered = (call: Call) => {
    options.trace?.(`${now} i${call.isolate.index} ${call.done ? "drops a late answer" : "hears"}`);
    if (call.done) return; // abandoned: the isolate never hears it
    call.done = true;
    const { isolate, answer } = call;
    isolate.inFlight = undefined;
    isolate.giveBackTries = 0;
    isolate.book.accept(NAME, limit, answer!.lease, call.sentLocal, call.request);
    if (answer!.lease) {
      const endsAt = now - local(isolate) + call.sentLocal + answer!.lease.spanMs + 1;
      at(endsAt, () => {
        isolate.giveBack = true;
        flush(isolate);
      });
    }
    call.hits.forEach((pending, i) => {
      const verdict = answer!.verdicts[i]!;
      if (verdict.allowed) result.admitted.push(call.decidedAt!);
      else if (verdict.waitMs !== undefined && pending.waited + verdict.waitMs <= options.maxWaitMs) {
        pending.waited += verdict.waitMs;
        at(now + verdict.waitMs, () => request(isolate, pending));
      } else result.refused.push({ sentAt: pending.sentAt, keep: pending.keep, retryInMs: verdict.retryInMs });
    });
    flush(isolate);
  };

  const timedOut = (call: Call) => {
    if (call.done) return;
    options.trace?.(`${now} i${call.isolate.index} gives up on a call`);
    call.done = true;
    const { isolate } = call;
    isolate.inFlight = undefined;
    result.failed += call.hits.length;
    if (call.request.want > 0) isolate.afterTimeout = true;
    if (call.request.returned?.length && ++isolate.giveBackTries < GIVE_BACK_ATTEMPTS)
      at(now + GIVE_BACK_RETRY_MS, () => ((isolate.giveBack = true), flush(isolate)));
    flush(isolate);
  };

  const flush = (isolate: Isolate) => {
    if (isolate.inFlight) return;
    while (isolate.queue.length > 0 && isolate.book.admit(NAME, limit, local(isolate))) {
      isolate.queue.shift();
      result.admitted.push(now);
    }
    if (isolate.queue.length > 0) {
      const hits = isolate.queue;
      isolate.queue = [];
      isolate.afterTimeout = isolate.renew = false;
      send(isolate, "hits", hits);
    } else if (isolate.renew) {
      isolate.renew = isolate.afterTimeout = false;
      send(isolate, "renew", []);
    } else if (isolate.afterTimeout || (isolate.giveBack && isolate.book.owes(NAME, local(isolate)))) {
      isolate.afterTimeout = isolate.giveBack = false;
      send(isolate, "give-back", []);
    } else isolate.giveBack = false;
  };

  const request = (isolate: Isolate, pending: Pending) => {
    // As counting.ts: a lease in hand answers first, whatever waits for a call.
    if (isolate.book.admit(NAME, limit, local(isolate))) {
      result.admitted.push(now);
      if (isolate.book.renewalDue(NAME, local(isolate), 120)) {
        isolate.renew = true;
        flush(isolate);
      }
      return;
    }
    isolate.queue.push(pending);
    flush(isolate);
  };

  for (const arrival of arrivals) at(arrival.at, () => request(isolates[arrival.isolate]!, { sentAt: arrival.at, waited: 0, keep: arrival.keep }));
  let lastDecided = Number.NEGATIVE_INFINITY;
  for (const restart of options.restarts ?? [])
    at(restart, () => {
      if (!options.restartsWhenIdle) counter = new Counter(store, NAME);
      else if (now - lastDecided >= SETTLE_MS) {
        counter.settle(now);
        counter = new Counter(store, NAME);
      }
    });
  while (events.length > 0) {
    const event = events.shift()!;
    now = event.at;
    event.run();
  }
  return result;
}
