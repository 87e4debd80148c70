/** Storage starts this small: most identities make a few requests, not `count`. */
const INITIAL_CAPACITY = 4;

/**
 * A FIFO ring buffer of non-decreasing timestamps with a hard size cap.
 *
 * Storage is a Float64Array (8 bytes per entry, no per-entry object) that is
 * grown lazily by doubling, never beyond `maxLength`, so an identity that made
 * 3 requests against a 6000 limit holds a 4-entry buffer, not a 6000-entry one.
 * The caller keeps the entries non-decreasing, which lets eviction work from
 * the head only and lets lookups binary-search.
 */
export class TimestampRing {
  #buf = new Float64Array(0);
  /** Index in `#buf` of the oldest entry. */
  #head = 0;
  #length = 0;
  #maxLength: number;

  /** @param maxLength the most entries this ring will ever hold (>= 1). */
  constructor(maxLength: number) {
    this.#maxLength = maxLength;
  }

  /** Number of entries held. */
  get length(): number {
    return this.#length;
  }

  /** Entries the current storage can hold without growing (<= maxLength). */
  get capacity(): number {
    return this.#buf.length;
  }

  /** The i-th oldest entry (0 = oldest); `i` must be in `[0, length)`. */
  at(i: number): number {
    let j = this.#head + i;
    if (j >= this.#buf.length) j -= this.#buf.length;
    return this.#buf[j]!;
  }

  /** Newest entry, or undefined when empty. */
  newest(): number | undefined {
    return this.#length === 0 ? undefined : this.at(this.#length - 1);
  }

  /** Appends `t`; the caller guarantees `length < maxLength` and `t >= newest()`. */
  push(t: number): void {
    if (this.#length === this.#buf.length) this.#resize(Math.min(this.#maxLength, Math.max(INITIAL_CAPACITY, this.#length * 2)));
    let j = this.#head + this.#length;
    if (j >= this.#buf.length) j -= this.#buf.length;
    this.#buf[j] = t;
    this.#length++;
  }

  /**
   * Inserts `t` in order (after any equal entries); the caller guarantees `length < maxLength`.
   * O(number of entries newer than `t`): entries ahead of `t` are the few units leased ahead of
   * time (see lease.ts), so this is the append of `push` in all but those cases.
   */
  insert(t: number): void {
    const at = this.firstAbove(t);
    this.push(t);
    for (let i = this.#length - 1; i > at; i--) this.#set(i, this.at(i - 1));
    this.#set(at, t);
  }

  /** Removes up to `n` entries equal to `t`; returns how many it removed. */
  removeEqual(t: number, n: number): number {
    const end = this.firstAbove(t);
    let start = end;
    while (start > 0 && end - start < n && this.at(start - 1) === t) start--;
    const removed = end - start;
    if (removed === 0) return 0;
    for (let i = end; i < this.#length; i++) this.#set(i - removed, this.at(i));
    this.#length -= removed;
    if (this.#length === 0) this.#head = 0;
    return removed;
  }

  /** Drops entries `<= cutoff` from the old end. Amortized O(1) per entry ever pushed. */
  dropAtMost(cutoff: number): void {
    this.dropFirst(this.firstAbove(cutoff));
  }

  /** Drops the `n` oldest entries (`n <= length`). */
  dropFirst(n: number): void {
    if (n <= 0) return;
    this.#head = (this.#head + n) % this.#buf.length;
    this.#length -= n;
    if (this.#length === 0) this.#head = 0;
  }

  /**
   * Index of the first entry `> cutoff` (`length` if none), without removing
   * anything: used by read-only queries, which must not forget entries a
   * later query with an earlier `now` would still need.
   */
  firstAbove(cutoff: number): number {
    if (this.#length === 0 || this.at(0) > cutoff) return 0;
    let lo = 1;
    let hi = this.#length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.at(mid) > cutoff) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }

  /** Copies the entries out, oldest first. */
  toArray(): number[] {
    const out = new Array<number>(this.#length);
    for (let i = 0; i < this.#length; i++) out[i] = this.at(i);
    return out;
  }

  /**
   * Replaces all entries with `sorted` (non-decreasing), keeping only the
   * newest `maxLength` of them.
   */
  replace(sorted: readonly number[]): void {
    const keep = sorted.slice(Math.max(0, sorted.length - this.#maxLength));
    this.#buf = new Float64Array(this.#capacityFor(keep.length));
    this.#buf.set(keep);
    this.#head = 0;
    this.#length = keep.length;
  }

  /**
   * Changes the cap. When it shrinks below `length`, the oldest entries go:
   * the newest ones are the ones that keep the window closed longest, so
   * keeping them can only over-count.
   */
  setMaxLength(maxLength: number): void {
    this.#maxLength = maxLength;
    if (this.#length > maxLength || this.#buf.length > maxLength) this.replace(this.toArray());
  }

  #set(i: number, t: number): void {
    let j = this.#head + i;
    if (j >= this.#buf.length) j -= this.#buf.length;
    this.#buf[j] = t;
  }

  #capacityFor(length: number): number {
    return length === 0 ? 0 : Math.min(this.#maxLength, Math.max(INITIAL_CAPACITY, length));
  }

  #resize(capacity: number): void {
    const next = new Float64Array(capacity);
    for (let i = 0; i < this.#length; i++) next[i] = this.at(i);
    this.#buf = next;
    this.#head = 0;
  }
}
