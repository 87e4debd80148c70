/**
 * Coalesces concurrent calls for one key into one call that decides them all, in arrival order.
 *
 * While a call for a key is in flight, requests for that key queue up; when it returns, the first
 * queued request to notice sends the whole queue as the next call (`send(n)` answers n results in
 * order). So a counter object sees at most one call in flight per isolate and counter, whatever
 * the burst, and decides the batch exactly as that many sequential calls (RateLimiter.hitBatch).
 *
 * Why polling, not a shared promise: in workerd a request may not wait on a promise another
 * request will settle (it is cancelled as hung, and its continuation would run in the other
 * request's context, where its own I/O is refused). So a waiting request checks its slot on its
 * own timer (`sleep`), and whoever sends a batch does so from its own request. A request with no
 * call in flight ahead of it sends at once: an idle counter adds no wait at all.
 *
 * A call may bring back the means to decide without one (an admission lease): `local`, when
 * given, is asked first for the queued requests, in arrival order, whenever no call is in flight,
 * and only what it cannot decide is sent. Without it, a busy counter would give back
 * every lease unused, because requests always queue behind the call that brings it.
 */
export class Coalescer<R> {
  readonly #groups = new Map<string, Group<R>>();
  readonly #sleep: (ms: number) => Promise<void>;
  readonly #now: () => number;
  readonly #pollMs: number;

  constructor(options: { sleep: (ms: number) => Promise<void>; now: () => number; pollMs?: number }) {
    this.#sleep = options.sleep;
    this.#now = options.now;
    this.#pollMs = options.pollMs ?? 1;
  }

  /**
   * This request's result from a call that decides it together with every request for `key`
   * queued with it. Each call gets `timeoutMs` from the moment it is sent: its requests fail with a
   * timeout once that passes without an answer, and the call is abandoned, so a call whose request
   * was cancelled mid-way (a client gone) cannot stall the key. A queued request waits for the call
   * ahead of it (at most its `timeoutMs`) and then for its own: never longer than two timeouts.
   */
  async join(key: string, timeoutMs: number, send: (n: number) => Promise<R[]>, local?: () => R | undefined): Promise<R> {
    let group = this.#groups.get(key);
    if (!group) this.#groups.set(key, (group = { sending: undefined, queue: [] }));
    const slot = { state: "queued" } as Slot<R>;
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

  async #send(key: string, group: Group<R>, own: Slot<R>, deadline: number, send: (n: number) => Promise<R[]>): Promise<R> {
    const batch = group.queue.splice(0);
    for (const slot of batch) Object.assign(slot, { state: "sent", deadline });
    const sending = { deadline };
    group.sending = sending;
    try {
      const results = await send(batch.length);
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

/** Decides queued requests from the front with `local` until it cannot, taking them off the queue. */
function decideLocally<R>(queue: Slot<R>[], local: () => R | undefined): void {
  let decided = 0;
  for (const slot of queue) {
    const result = local();
    if (result === undefined) break;
    Object.assign(slot, { state: "answered", result });
    decided++;
  }
  queue.splice(0, decided);
}

interface Group<R> {
  /** The call in flight, with the time it is abandoned. */
  sending: { readonly deadline: number } | undefined;
  /** Requests waiting for the next call, in arrival order. */
  queue: Slot<R>[];
}

type Slot<R> =
  | { state: "queued" }
  | { state: "sent"; deadline: number }
  | { state: "answered"; result: R }
  | { state: "failed"; error: unknown };
