/**
 * Coalesces concurrent calls to one counter object into few calls that decide them all, each
 * counter's requests in arrival order.
 *
 * A counter has at most one call in flight per isolate: while it has one, its requests queue up,
 * and when it returns, the first queued request to notice sends the queue as the next call
 * (`send(items)` answers one result per item, in order), so each counter's part is decided
 * exactly as that many sequential calls (RateLimiter.decideMany). Different counters of one object
 * (identities sharing it) need not wait for each other: an object may have up to
 * `maxCallsInFlight` calls in flight per isolate, each for counters the others do not hold. Past
 * that, requests for every counter of the object queue together and share the next call. So an
 * object sees a bounded number of calls from an isolate whatever the burst, and an identity is not
 * held up by another identity's call (its storage commit) unless the object is that busy.
 *
 * Why polling, not a shared promise: in workerd a request may not wait on a promise another
 * request will settle (it is cancelled as hung, and its continuation would run in the other
 * request's context, where its own I/O is refused). So a waiting request checks its slot on its
 * own timer (`sleep`), and whoever sends a batch does so from its own request. A request with no
 * call in flight ahead of it sends at once: an idle object adds no wait at all.
 *
 * A call may bring back the means to decide without one (an admission lease): `local`, when
 * given, is asked first for the queued requests of counters with no call in flight, in arrival
 * order, and only what it cannot decide is sent. Once it refuses a counter's request, that
 * counter's later requests go with it (never decided ahead of it). Without this, a busy counter
 * would give back every lease unused, because requests always queue behind the call that brings it.
 */
export class Coalescer<I extends CoalescedItem, R> {
  readonly #groups = new Map<string, Group<I, R>>();
  readonly #sleep: (ms: number) => Promise<void>;
  readonly #now: () => number;
  readonly #pollMs: number;
  readonly #maxCallsInFlight: number;

  /** @param options.maxCallsInFlight calls one object may have in flight at once (default 1), never two for one counter */
  constructor(options: { sleep: (ms: number) => Promise<void>; now: () => number; pollMs?: number; maxCallsInFlight?: number }) {
    this.#sleep = options.sleep;
    this.#now = options.now;
    this.#pollMs = options.pollMs ?? 1;
    this.#maxCallsInFlight = Math.max(1, options.maxCallsInFlight ?? 1);
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
      if (slot.state === "sent" && slot.deadline <= now) throw new Error(`counter did not answer within ${timeoutMs} ms`);
      await this.#sleep(this.#pollMs);
    }
  }

  /** Calls in flight or queued, for tests and metrics. */
  get size(): number {
    return this.#groups.size;
  }

  /** Sends every queued request whose counter has no call in flight (`busy`), in arrival order. */
  async #send(key: string, group: Group<I, R>, own: Slot<I, R>, deadline: number, send: (items: readonly I[]) => Promise<R[]>, busy: ReadonlySet<string>): Promise<R> {
    const batch: Slot<I, R>[] = [];
    let kept = 0;
    for (const slot of group.queue) {
      if (busy.has(slot.item.counter)) group.queue[kept++] = slot;
      else batch.push(slot);
    }
    group.queue.length = kept;
    const items = batch.map((slot) => slot.item);
    for (const slot of batch) Object.assign(slot, { state: "sent", deadline });
    const sending = { deadline, counters: new Set(items.map((item) => item.counter)) };
    group.sending.add(sending);
    try {
      const results = await send(items);
      if (results.length !== batch.length) throw new Error(`counter answered ${results.length} results for ${batch.length} requests`);
      batch.forEach((slot, i) => Object.assign(slot, { state: "answered", result: results[i] }));
    } catch (error) {
      for (const slot of batch) Object.assign(slot, { state: "failed", error });
    } finally {
      group.sending.delete(sending);
      this.#forgetIfIdle(key, group);
    }
    if (own.state === "answered") return own.result;
    throw (own as { error: unknown }).error;
  }

  #forgetIfIdle(key: string, group: Group<I, R>): void {
    if (group.sending.size === 0 && group.queue.length === 0 && this.#groups.get(key) === group) this.#groups.delete(key);
  }
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

interface Group<I, R> {
  /** The calls in flight: the counters each decides, and the time it is abandoned. */
  readonly sending: Set<{ readonly deadline: number; readonly counters: ReadonlySet<string> }>;
  /** Requests waiting for the next call, in arrival order. */
  queue: Slot<I, R>[];
}

type Slot<I, R> = { readonly item: I } & (
  | { state: "queued" }
  | { state: "sent"; deadline: number }
  | { state: "answered"; result: R }
  | { state: "failed"; error: unknown }
);
