/**
 * Per-isolate memory of counters known to be exhausted, until the time they free a unit. A
 * denial found here is exact (a window cannot free room before its oldest admission expires), so
 * a flood at 100x the limit is answered without calling the counter object at all.
 */
export class DenyCache {
  readonly #entries = new Map<string, number>();
  readonly #maxEntries: number;

  constructor(maxEntries = 10_000) {
    this.#maxEntries = maxEntries;
  }

  /** The time (ms) the counter frees room, if it is still known to be exhausted at `now`. */
  retryAt(key: string, now: number): number | undefined {
    const until = this.#entries.get(key);
    if (until === undefined) return undefined;
    if (until > now) return until;
    this.#entries.delete(key);
    return undefined;
  }

  /** Remember that `key` admits nothing before `until`. Oldest entries go first when full. */
  remember(key: string, until: number): void {
    this.#entries.delete(key);
    this.#entries.set(key, until);
    if (this.#entries.size > this.#maxEntries) {
      const oldest = this.#entries.keys().next().value;
      if (oldest !== undefined) this.#entries.delete(oldest);
    }
  }

  get size(): number {
    return this.#entries.size;
  }
}
