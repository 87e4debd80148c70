/**
 * Per-isolate memory of counters known to be exhausted. A denial found here is exact (a window
 * cannot free room before its oldest admission expires), so a flood at 100x the limit is answered
 * without calling the counter object at all. Each entry has two times: until when it may be
 * answered from here (`until`: sooner than the retry when a lease held elsewhere may come back
 * unused), and when the window frees room (`retryAt`: what the answer says).
 */
export class DenyCache {
  readonly #entries = new Map<string, { until: number; retryAt: number }>();
  readonly #maxEntries: number;

  constructor(maxEntries = 10_000) {
    this.#maxEntries = maxEntries;
  }

  /** The time (ms) the counter frees room, if it may still be answered from here at `now`. */
  retryAt(key: string, now: number): number | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.until > now) return entry.retryAt;
    this.#entries.delete(key);
    return undefined;
  }

  /**
   * Remember that `key` admits nothing before `retryAt`, answering it from here until `until`
   * (`retryAt` by default). Oldest entries go first when full.
   */
  remember(key: string, retryAt: number, until = retryAt): void {
    this.#entries.delete(key);
    this.#entries.set(key, { until: Math.min(until, retryAt), retryAt });
    if (this.#entries.size > this.#maxEntries) {
      const oldest = this.#entries.keys().next().value;
      if (oldest !== undefined) this.#entries.delete(oldest);
    }
  }

  get size(): number {
    return this.#entries.size;
  }
}
