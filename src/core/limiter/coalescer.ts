/**
 * Coalesces concurrent calls to one counter object into few calls that decide them all, each
 * counter's requests in arrival order.
 *
 * A counter has at most one call in flight per isolate: while it has one, its requests queue up,
 * and when it returns, the first queued request to wake sends the queue as the next call
 * (`send(items)` answers one result per item, in order), so each counter's part is decided
 * exactly as that many sequential calls (CounterObject.decide). Different counters of one object
 * (identities sharing it) need not wait for each other: an object may have up to
 * `maxCallsInFlight` calls in flight per isolate, each for counters the others do not hold. Past
 * that, requests for every counter of the object queue together and share the next call. So an
 * object sees a bounded number of calls from an isolate whatever the burst, and an identity is not
 * held up by another identity's call (its storage commit) unless the object is that busy.
 *
 * How a queued request waits (docs/counting.md): each call carries a promise its sender creates
 * and settles from its own request when the call returns, and each queued request follows the
 * promises of the calls ahead of it while holding one timer of its own, until the deadline of the
 * call it waits for, cleared when it wakes. Both halves are needed in workerd: a request that
 * follows another request's promise resumes in its own context (its own I/O works) but, should
 * that promise never settle (its sender's client went away mid-call), would wait for ever; a
 * request that waits on nothing of its own is cancelled as hung. Not the other way round either:
 * a promise the waiter creates and another request settles resumes it in the settling request's
 * context unless `handle_cross_request_promise_resolution` is on (it is for this Worker's
 * compatibility date, not under @cloudflare/vitest-plugin, which turns it off). So a request
 * wakes once per call that returns ahead of it, or at that call's deadline, never on a polling
 * timer; and whoever sends a batch does so from its own request. A request with no call in
 * flight ahead of it sends at once: an idle object adds no wait and no timer.
 *
 * A call may bring back the means to decide without one (an admission lease): `local`, when
 * given, is asked first for the queued requests of counters with no call in flight, in arrival
 * order, and only what it cannot decide is sent. Once it refuses a counter's request, that
 * counter's later requests go with it (never decided ahead of it). Without this, a busy counter
 * would give back every lease unused, because requests always queue behind the call that brings it.
 *
 * A call may also carry work for other counters of the object that no request is waiting for
 * (`riders`, asked as each call is sent, for counters with no call in flight): leases given back
 * with a call that goes to the object anyway, instead of with a call of their own. Their counters
 * count as in flight with the call, as if a request had sent them.
 */
/** A call sent and not answered within its deadline: the object may still have decided it. */
export class CallTimedOut extends Error {
  override name = "CallTimedOut";
  constructor(timeoutMs: number) {
    super(`counter did not answer within ${timeoutMs} ms`);
  }
}

export class Coalescer<I extends CoalescedItem, R> {
  readonly #groups = new Map<string, Group<I, R>>();
  readonly #now: () => number;
  readonly #setTimeout: (wake: () => void, ms: number) => unknown;
  readonly #clearTimeout: (timer: unknown) => void;
  readonly #maxCallsInFlight: number;
  readonly #riders: ((key: string) => readonly I[]) | undefined;

  /**
   * @example new Coalescer<Queued, AttributedVerdict>({ now: () => clock.now(), setTimeout: (wake, ms) => setTimeout(wake, ms), clearTimeout: (timer) => clearTimeout(timer as number), maxCallsInFlight: 4 })
   */
  constructor(options: CoalescerOptions<I>) {
    this.#now = options.now;
    const { setTimeout = hostTimers.setTimeout, clearTimeout = hostTimers.clearTimeout } = options;
    // Called as plain functions, never as methods of `options` (workerd's globals refuse another `this`).
    this.#setTimeout = (wake, ms) => setTimeout(wake, ms);
    this.#clearTimeout = (timer) => clearTimeout(timer);
    this.#maxCallsInFlight = Math.max(1, options.maxCallsInFlight ?? 1);
    this.#riders = options.riders && ((key) => options.riders!(key));
  }

  /**
   * The result for `item` from a call to the object `key` that decides it together with the other
   * requests queued for that object whose counters have no call in flight. Each call gets
   * `timeoutMs` from the moment it is sent: its requests fail with a timeout once that passes
   * without an answer, and the call is abandoned, so a call whose request was cancelled mid-way (a
   * client gone) cannot stall the object. A queued request waits for a call ahead of it (its
   * counter's, or a free place among the object's calls: at most `timeoutMs`) and then for its own:
   * never longer than two timeouts.
   */
  async join(key: string, item: I, timeoutMs: number, send: (items: readonly I[]) => Promise<R[]>, local?: (item: I) => R | undefined): Promise<R> {
    let group = this.#groups.get(key);
    if (!group) this.#groups.set(key, (group = { sending: new Set(), queue: [] }));
    const slot = { state: "queued", item } as Slot<I, R>;
    group.queue.push(slot);
    for (;;) {
      if (slot.state === "answered") return slot.result;
      if (slot.state === "failed") throw slot.error;
      const now = this.#now();
      for (const call of group.sending) if (call.deadline <= now) group.sending.delete(call); // abandoned
      if (slot.state === "queued" && group.sending.size < this.#maxCallsInFlight) {
        const busy = busyCounters(group);
        if (!busy.has(slot.item.counter)) {
          if (local) decideLocally(group.queue, local, busy);
          if (slot.state === "queued") return this.#send(key, group, slot, now + timeoutMs, send, busy);
          this.#forgetIfIdle(key, group);
          continue;
        }
      }
      if (slot.state === "sent" && slot.call.deadline <= now) throw new CallTimedOut(timeoutMs);
      // A request in a call waits for that call; a queued one for any call of the object (each
      // may free its counter or a place), until the first of their deadlines.
      await this.#wait(slot.state === "sent" ? [slot.call] : group.sending, now);
    }
  }

  /** Calls in flight or queued, for tests and metrics. */
  get size(): number {
    return this.#groups.size;
  }

  /**
   * Until one of `calls` returns or the first of their deadlines, on one timer of the waiting
   * request's own, cleared by that request once it is awake again (a timer belongs to the request
   * that set it).
   */
  async #wait(calls: Iterable<Call>, now: number): Promise<void> {
    let until = Number.POSITIVE_INFINITY;
    let timer: unknown;
    await new Promise<void>((wake) => {
      for (const call of calls) {
        // A rejection is a wake-up too: in workerd, following a promise of a request that ended can fail.
        call.returned.then(wake, wake);
        until = Math.min(until, call.deadline);
      }
      if (Number.isFinite(until)) timer = this.#setTimeout(wake, Math.max(0, until - now));
    });
    if (timer !== undefined) this.#clearTimeout(timer);
  }

  /** Sends every queued request whose counter has no call in flight (`busy`), in arrival order. */
  async #send(
    key: string,
    group: Group<I, R>,
    own: Slot<I, R>,
    deadline: number,
    send: (items: readonly I[]) => Promise<R[]>,
    busy: ReadonlySet<string>,
  ): Promise<R> {
    const batch: Slot<I, R>[] = [];
    let kept = 0;
    for (const slot of group.queue) {
      if (busy.has(slot.item.counter)) group.queue[kept++] = slot;
      else batch.push(slot);
    }
    group.queue.length = kept;
    const items = batch.map((slot) => slot.item);
    const counters = new Set(items.map((item) => item.counter));
    const riders = this.#riders?.(key).filter((rider) => !busy.has(rider.counter) && !counters.has(rider.counter)) ?? [];
    for (const rider of riders) counters.add(rider.counter);
    // Created and settled by this request, the sender: see the class comment.
    const { promise: returned, resolve: hasReturned } = Promise.withResolvers<void>();
    const call: Call = { deadline, counters, returned };
    for (const slot of batch) Object.assign(slot, { state: "sent", call });
    group.sending.add(call);
    try {
      const results = await send(riders.length > 0 ? [...items, ...riders] : items);
      if (results.length !== items.length + riders.length)
        throw new Error(`counter answered ${results.length} results for ${items.length + riders.length} items`);
      batch.forEach((slot, i) => Object.assign(slot, { state: "answered", result: results[i] }));
    } catch (error) {
      for (const slot of batch) Object.assign(slot, { state: "failed", error });
    } finally {
      group.sending.delete(call);
      this.#forgetIfIdle(key, group);
      hasReturned();
    }
    if (own.state === "answered") return own.result;
    throw (own as { error: unknown }).error;
  }

  #forgetIfIdle(key: string, group: Group<I, R>): void {
    if (group.sending.size === 0 && group.queue.length === 0 && this.#groups.get(key) === group) this.#groups.delete(key);
  }
}

/** How a Coalescer tells time and waits. */
export interface CoalescerOptions<I extends CoalescedItem = CoalescedItem> {
  /** The clock deadlines are measured on (ms). */
  now(): number;
  /**
   * Starts a timer that calls `wake` after `ms` (a waiting request's one timer, for the deadline of
   * the call it waits for); the host's `setTimeout` when not given.
   */
  setTimeout?(wake: () => void, ms: number): unknown;
  /** Stops a timer `setTimeout` started; the host's `clearTimeout` when not given. */
  clearTimeout?(timer: unknown): void;
  /** Calls one object may have in flight at once (default 1), never two for one counter. */
  maxCallsInFlight?: number;
  /**
   * Items to send with a call to the object `key` besides the requests it decides (only those of
   * counters with no call in flight and none in this one go); their results are dropped.
   */
  riders?(key: string): readonly I[];
}

/** The host's timers, as plain functions (both Node and workerd have them). */
const hostTimers = {
  setTimeout: (wake: () => void, ms: number): unknown => (globalThis as unknown as HostTimers).setTimeout(wake, ms),
  clearTimeout: (timer: unknown): void => (globalThis as unknown as HostTimers).clearTimeout(timer),
};
interface HostTimers {
  setTimeout(wake: () => void, ms: number): unknown;
  clearTimeout(timer: unknown): void;
}

/** The counters of an object that have a call in flight. */
function busyCounters(group: Group<unknown, unknown>): Set<string> {
  const busy = new Set<string>();
  for (const call of group.sending) for (const counter of call.counters) busy.add(counter);
  return busy;
}

/** What is queued: one request, for one counter of the object. */
export interface CoalescedItem {
  /** The counter's name: requests for one counter are decided in arrival order. */
  readonly counter: string;
}

/**
 * Decides queued requests of counters with no call in flight (not in `busy`) with `local`, in
 * arrival order, taking those it decides off the queue. A counter it refuses once is not asked
 * again in this pass: its later requests must not be decided ahead of the refused one.
 */
function decideLocally<I extends CoalescedItem, R>(queue: Slot<I, R>[], local: (item: I) => R | undefined, busy: ReadonlySet<string>): void {
  const refused = new Set<string>(busy);
  let kept = 0;
  for (const slot of queue) {
    const result = refused.has(slot.item.counter) ? undefined : local(slot.item);
    if (result === undefined) {
      refused.add(slot.item.counter);
      queue[kept++] = slot;
    } else {
      Object.assign(slot, { state: "answered", result });
    }
  }
  queue.length = kept;
}

/** A call in flight: the counters it decides, the time it is abandoned, and when it returned. */
interface Call {
  readonly deadline: number;
  readonly counters: ReadonlySet<string>;
  /** Settled by the sender's request when the call returns (never, if that request was cancelled). */
  readonly returned: Promise<void>;
}

interface Group<I, R> {
  /** The calls in flight. */
  readonly sending: Set<Call>;
  /** Requests waiting for the next call, in arrival order. */
  queue: Slot<I, R>[];
}

type Slot<I, R> = { readonly item: I } & (
  { state: "queued" } | { state: "sent"; call: Call } | { state: "answered"; result: R } | { state: "failed"; error: unknown }
);
