import { TimestampRing } from "./timestamp-ring.ts";
import type { Limit, WindowAnswer } from "./types.ts";
import { assertLimit, assertTime } from "./validate.ts";

/**
 * Exact sliding-window limiter for one identity.
 *
 * A request at `now` is admitted iff fewer than `count` earlier admissions
 * have a timestamp `t > now - intervalMs`; denials are not recorded. Hence no
 * half-open window `[a, a + intervalMs)` ever contains more than `count`
 * admissions, whatever the arrival pattern (unlike fixed windows, which allow
 * 2x at a boundary, or the weighted two-counter approximation).
 *
 * It keeps the admission timestamps themselves in a lazily grown ring buffer: every one still in
 * the window, and, of those that left it, the newest ones up to `count` in all, so that a limit
 * whose interval grows is decided on the history it now covers (`setLimit`). What it no longer
 * holds it remembers as a bound (`#forgottenUpTo`), never as nothing. Time is always passed in.
 */
export class SlidingWindow {
  #count: number;
  #intervalMs: number;
  readonly #ring: TimestampRing;
  /**
   * Admissions at or before this time may have been forgotten (dropped to keep the buffer at
   * `count`, or never loaded: a window rebuilt from storage knows only its last interval).
   */
  #forgottenUpTo = Number.NEGATIVE_INFINITY;

  /**
   * @param options.forgottenUpTo admissions at or before this time are unknown to this window (a
   *   window rebuilt from storage, which holds one interval): `setLimit` assumes the worst of them.
   * @throws RangeError if `count` or `intervalMs` is not a positive integer.
   */
  constructor(limit: Limit, options: { forgottenUpTo?: number } = {}) {
    assertLimit(limit);
    this.#count = limit.count;
    this.#intervalMs = limit.intervalMs;
    this.#ring = new TimestampRing(limit.count);
    if (options.forgottenUpTo !== undefined) this.#forgottenUpTo = options.forgottenUpTo;
  }

  /**
   * Decides the request at `now` and records it if admitted.
   * O(log n) to find the window's start, O(1) amortized to record.
   */
  hit(now: number): WindowAnswer {
    // Checked inline: this is the per-request path, the helper only builds the error.
    if (!Number.isFinite(now)) assertTime(now);
    const ring = this.#ring;
    const first = ring.firstAbove(now - this.#intervalMs);
    const inWindow = ring.length - first;
    // After a limit shrank the window may hold more than `count`: the entry whose expiry brings
    // it back under the limit is the (inWindow - count)-th oldest.
    if (inWindow >= this.#count) return this.#answer(now, false, inWindow, ring.at(first + inWindow - this.#count));
    this.#record(now, 1, now);
    return this.#answer(now, true, inWindow + 1, ring.at(ring.firstAbove(now - this.#intervalMs)));
  }

  /**
   * Exactly the answer `hit(now)` would give (including `remaining` and
   * `resetAt` as if the request had been admitted), without recording
   * anything. `allowed` says whether it would be admitted.
   * Read-only, so `peek(later)` then `peek(earlier)` both see the same state.
   */
  peek(now: number): WindowAnswer {
    if (!Number.isFinite(now)) assertTime(now);
    const ring = this.#ring;
    const first = ring.firstAbove(now - this.#intervalMs);
    const inWindow = ring.length - first;
    if (inWindow >= this.#count) return this.#answer(now, false, inWindow, ring.at(first + inWindow - this.#count));
    // An admission would be recorded at max(now, newest); when the window is
    // empty every held entry is expired (< now), so that is `now`.
    return this.#answer(now, true, inWindow + 1, inWindow > 0 ? ring.at(first) : now);
  }

  /**
   * Records `n` admissions at `at`, which may lie ahead of `now`: units an isolate may use until
   * `at` (lease.ts), counted as if used at the last moment they can be, so they leave the window
   * no earlier than any real use. The caller checked there is room for them at `now`.
   */
  reserve(at: number, n: number, now: number): void {
    assertTime(at, "reserved time");
    this.#record(at, n, now);
  }

  /** Forgets up to `n` admissions recorded at exactly `at` (a lease given back); returns how many. */
  release(at: number, n: number): number {
    return this.#ring.removeEqual(at, n);
  }

  /** Admissions currently in the window at `now` (read-only). */
  size(now: number): number {
    if (!Number.isFinite(now)) assertTime(now);
    return this.#ring.length - this.#ring.firstAbove(now - this.#intervalMs);
  }

  /** The admission times still in the window at `now`, oldest first (for a {@link Snapshot}). */
  admissions(now: number): number[] {
    if (!Number.isFinite(now)) assertTime(now);
    return this.#ring.toArray().slice(this.#ring.firstAbove(now - this.#intervalMs));
  }

  /** True when nothing is in the window at `now`: the object can be deleted. */
  isIdle(now: number): boolean {
    return this.size(now) === 0;
  }

  /**
   * Timestamp of the most recent recorded admission still held, if any. It
   * may already be out of the window; the window is idle from
   * `newestAdmission() + intervalMs` on (a good time for a cleanup alarm).
   */
  newestAdmission(): number | undefined {
    return this.#ring.newest();
  }

  /**
   * Diagnostics: entries the storage can hold without growing. Stays small for identities that
   * made few requests, and beyond `count` only while the window itself holds more (seeded, or a
   * limit lowered).
   */
  get capacity(): number {
    return this.#ring.capacity;
  }

  /**
   * Adds admissions made elsewhere or before a restart: records `times` (any order) together with
   * those already held, every one of them. None is dropped to make room: a window that holds more
   * than `count` denies until enough have expired, and one given back later (a lease, `release`)
   * must not bring back room that a dropped real admission still takes.
   * @throws RangeError on a non-finite timestamp.
   */
  seed(times: readonly number[]): void {
    for (const t of times) assertTime(t, "seeded timestamp");
    const merged = this.#ring.toArray().concat(times);
    merged.sort((a, b) => a - b);
    this.#ring.setMaxLength(Math.max(this.#count, merged.length));
    this.#ring.replace(merged);
  }

  /**
   * Switches to a new limit (the rule table or an override changed it) at `now`.
   * Every entry held is kept, so a limit that shrinks and grows back frees nothing early. When
   * the window can now reach further back than the history it holds (a longer interval, or a
   * larger count than the entries it kept), it assumes the forgotten span was as full as the old
   * limit allowed, placed at the latest moment it can have been: it may refuse early after such
   * a change, never admit more than the new limit.
   * @throws RangeError if `count` or `intervalMs` is not a positive integer.
   */
  setLimit(limit: Limit, now?: number): void {
    assertLimit(limit);
    const old = { count: this.#count, intervalMs: this.#intervalMs };
    this.#count = limit.count;
    this.#intervalMs = limit.intervalMs;
    const forgotten = this.#forgottenUpTo;
    if (now === undefined || !(forgotten > now - limit.intervalMs)) return;
    // Entries newer than what was forgotten are all held; the window needs `count` of them.
    const held = this.#ring.length - this.#ring.firstAbove(forgotten);
    if (held >= limit.count) return;
    // At most `old.count` admissions per old interval in the forgotten span within the new window.
    const span = forgotten - (now - limit.intervalMs);
    const possible = old.count * Math.ceil(span / old.intervalMs);
    const assumed = Math.min(limit.count - held, possible);
    if (assumed > 0) this.seed(new Array<number>(assumed).fill(forgotten));
  }

  /**
   * Records `n` admissions at `at` in order (entries ahead of `at`, units leased ahead of time or
   * a clock that stepped back, stay where they are). Each was checked against every entry above
   * `now - intervalMs`, whatever their order, so no window holds more than `count`. To keep the
   * buffer at `count` entries it forgets the oldest ones already out of the window at `now`.
   */
  #record(at: number, n: number, now: number): void {
    const ring = this.#ring;
    const cutoff = now - this.#intervalMs;
    const spare = ring.length + n - Math.max(this.#count, ring.length - ring.firstAbove(cutoff) + n);
    if (spare > 0) {
      const drop = Math.min(spare, ring.firstAbove(cutoff));
      if (drop > 0) {
        this.#forgottenUpTo = Math.max(this.#forgottenUpTo, ring.at(drop - 1));
        ring.dropFirst(drop);
      }
    }
    // The buffer grows to `count`, and past it only while the window itself holds more.
    ring.setMaxLength(Math.max(this.#count, ring.length + n));
    for (let i = 0; i < n; i++) {
      const newest = ring.newest();
      if (newest === undefined || newest <= at) ring.push(at);
      else ring.insert(at);
    }
  }

  /**
   * Builds the answer given how many admissions are in the window after it
   * (`inWindow`, including this one if admitted) and the oldest of them.
   */
  #answer(now: number, allowed: boolean, inWindow: number, oldest: number): WindowAnswer {
    const remaining = Math.max(0, this.#count - inWindow);
    const resetAt = inWindow === 0 ? now : oldest + this.#intervalMs;
    // With `remaining === 0` the window holds exactly `count` entries, so the
    // oldest one's expiry frees the first unit. It can only lie beyond
    // `now + intervalMs` if it was recorded ahead of `now` (clock stepped
    // back); the clamp keeps Retry-After within one interval, and a client
    // that comes back early is simply told again.
    const retryAt = remaining > 0 ? now : Math.min(resetAt, now + this.#intervalMs);
    return { allowed, limit: this.#count, remaining, resetAt, retryAt };
  }
}
