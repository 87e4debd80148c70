/**
 * Coalesces concurrent calls to one counter object into one call that decides them all, each
 * counter's requests in arrival order.
 *
 * While a call to an object is in flight, requests for it (for any of the counters it holds)
 * queue up; when it returns, the first queued request to notice sends the whole queue as the next
 * call (`send(items)` answers one result per item, in order). So an object sees at most one call
 * in flight per isolate, whatever the burst and however many identities share it, and decides
 * each counter's part exactly as that many sequential calls (RateLimiter.decideMany).
 *
 * Why polling, not a shared promise: in workerd a request may not wait on a promise another
 * request will settle (it is cancelled as hung, and its continuation would run in the other
 * request's context, where its own I/O is refused). So a waiting request checks its slot on its
 * own timer (`sleep`), and whoever sends a batch does so from its own request. A request with no
 * call in flight ahead of it sends at once: an idle object adds no wait at all.
 *
 * A call may bring back the means to decide without one (an admission lease): `local`, when
 * given, is asked first for the queued requests, in arrival order, whenever no call is in flight,
 * and only what it cannot decide is sent. Once it refuses a counter's request, that counter's
 * later requests go with it (never decided ahead of it). Without this, a busy counter would give
 * back every lease unused, because requests always queue behind the call that brings it.
 */
export class Coalescer<I extends CoalescedItem, R> {
  readonly #groups = new Map<string, Group<I, R>>();
  readonly #sleep: (ms: number) => Promise<void>;
  readonly #now: () => number;
  readonly #pollMs: number;

  constructor(options: { sleep: (ms: number) => Promise<void>; now: () => number; pollMs?: number }) {
    this.#sleep = options.sleep;
    this.#now = options.now;
    this.#pollMs = options.pollMs ?? 1;
  }

  /**
   * The result for `item` from a call to the object `key` that decides it together with every
   * request for that object queued with it. Each call gets `timeoutMs` from the moment it is sent: its requests fail with a
   * timeout once that passes without an answer, and the call is abandoned, so a call whose request
   * was cancelled mid-way (a client gone) cannot stall the key. A queued request waits for the call
   * ahead of it (at most its `timeoutMs`) and then for its own: never longer than two timeouts.
   */
  async join(key: string, item: I, timeoutMs: number, send: (items: readonly I[]) => Promise<R[]>, local?: (item: I) => R | undefined): Promise<R> {
    let group = this.#groups.get(key);
    if (!group) this.#groups.set(key, (group = { sending: undefined, queue: [] }));
    const slot = { state: "queued", item } as Slot<I, R>;
    group.queue.push(slot);
    for (;;) {
      if (slot.state === "answered") return slot.result;
      if (slot.state === "failed") throw slot.error;
      const now = this.#now();
      if (group.sending && group.sending.deadline <= now) group.sending = undefined; // abandoned
      if (slot.state === "queued" && !group.sending) {
        if (local) decideLocally(group.queue, local);
        if (slot.state === "queued") return this.#send(key, group, slot, now + timeoutMs, send);
        if (group.queue.length === 0 && this.#groups.get(key) === group) this.#groups.delete(key);
        continue;
      }
      if (slot.state === "sent" && slot.deadline <= now) throw new Error(`counter did not answer within ${timeoutMs} ms`);
      await this.#sleep(this.#pollMs);
    }
  }

  /** Calls in flight or queued, for tests and metrics. */
  get size(): number {
    return this.#groups.size;
  }

  async #send(key: string, group: Group<I, R>, own: Slot<I, R>, deadline: number, send: (items: readonly I[]) => Promise<R[]>): Promise<R> {
    const batch = group.queue.splice(0);
    const items = batch.map((slot) => slot.item);
    for (const slot of batch) Object.assign(slot, { state: "sent", deadline });
    const sending = { deadline };
    group.sending = sending;
    try {
      const results = await send(items);
      if (results.length !== batch.length) throw new Error(`counter answered ${results.length} results for ${batch.length} requests`);
      batch.forEach((slot, i) => Object.assign(slot, { state: "answered", result: results[i] }));
    } catch (error) {
      for (const slot of batch) Object.assign(slot, { state: "failed", error });
    } finally {
      if (group.sending === sending) group.sending = undefined;
      if (!group.sending && group.queue.length === 0 && this.#groups.get(key) === group) this.#groups.delete(key);
    }
    if (own.state === "answered") return own.result;
    throw (own as { error: unknown }).error;
  }
}

/** What is queued: one request, for one counter of the object. */
export interface CoalescedItem {
  /** The counter's name: requests for one counter are decided in arrival order. */
  readonly counter: string;
}

/**
 * Decides queued requests with `local`, in arrival order, taking those it decides off the queue.
 * A counter it refuses once is not asked again in this pass: its later requests must not be
 * decided ahead of the refused one.
 */
function decideLocally<I extends CoalescedItem, R>(queue: Slot<I, R>[], local: (item: I) => R | undefined): void {
  const refused = new Set<string>();
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
  /** The call in flight, with the time it is abandoned. */
  sending: { readonly deadline: number } | undefined;
  /** Requests waiting for the next call, in arrival order. */
  queue: Slot<I, R>[];
}

type Slot<I, R> = { readonly item: I } & (
  | { state: "queued" }
  | { state: "sent"; deadline: number }
  | { state: "answered"; result: R }
  | { state: "failed"; error: unknown }
);
