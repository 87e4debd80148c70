import { TimestampRing } from "./timestamp-ring.ts";
import type { Decision, Limit } from "./types.ts";
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
 * It keeps the admission timestamps themselves, at most `count` of them,
 * in a lazily grown ring buffer. Time is always passed in. If the clock
 * steps back, entries already dropped as expired stay dropped: they were
 * out of the window at a `now` already seen.
 */
export class SlidingWindow {
  #count: number;
  #intervalMs: number;
  readonly #ring: TimestampRing;

  /** @throws RangeError if `count` or `intervalMs` is not a positive integer. */
  constructor(limit: Limit) {
    assertLimit(limit);
    this.#count = limit.count;
    this.#intervalMs = limit.intervalMs;
    this.#ring = new TimestampRing(limit.count);
  }

  /**
   * Decides the request at `now` and records it if admitted.
   * O(1) amortized: expired entries are dropped from the head as time passes.
   */
  hit(now: number): Decision {
    // Checked inline: this is the per-request path, the helper only builds the error.
    if (!Number.isFinite(now)) assertTime(now);
    const ring = this.#ring;
    // Entries are non-decreasing, so once the head is inside the window every
    // entry is: the in-window count is simply the length.
    ring.dropAtMost(now - this.#intervalMs);
    const inWindow = ring.length;
    // After a limit shrank the window may hold more than `count`: the entry whose expiry brings
    // it back under the limit is the (inWindow - count)-th oldest.
    if (inWindow >= this.#count) return this.#decision(now, false, inWindow, ring.at(inWindow - this.#count));
    // Recorded at its own time, in order: entries ahead of `now` (units leased ahead of time, a
    // clock that stepped back) stay where they are. Each admission was checked against every
    // entry above `now - intervalMs`, whatever their order, so no window holds more than `count`.
    const newest = ring.newest();
    if (newest === undefined || newest <= now) ring.push(now);
    else ring.insert(now);
    return this.#decision(now, true, inWindow + 1, ring.at(0));
  }

  /**
   * Exactly the Decision `hit(now)` would return (including `remaining` and
   * `resetAt` as if the request had been admitted), without recording
   * anything. `allowed` says whether it would be admitted.
   * Read-only, so `peek(later)` then `peek(earlier)` both see the same state.
   */
  peek(now: number): Decision {
    if (!Number.isFinite(now)) assertTime(now);
    const ring = this.#ring;
    const first = ring.firstAbove(now - this.#intervalMs);
    const inWindow = ring.length - first;
    if (inWindow >= this.#count) return this.#decision(now, false, inWindow, ring.at(first + inWindow - this.#count));
    // An admission would be recorded at max(now, newest); when the window is
    // empty every held entry is expired (< now), so that is `now`.
    return this.#decision(now, true, inWindow + 1, inWindow > 0 ? ring.at(first) : now);
  }

  /**
   * Records `n` admissions at `at`, which may lie ahead of `now`: units an isolate may use until
   * `at` (lease.ts), counted as if used at the last moment they can be, so they leave the window
   * no earlier than any real use. The caller checked there is room for them at `now`.
   */
  reserve(at: number, n: number, now: number): void {
    assertTime(at, "reserved time");
    this.#ring.dropAtMost(now - this.#intervalMs);
    for (let i = 0; i < n; i++) this.#ring.insert(at);
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
   * Diagnostics: entries the storage can hold without growing. Never exceeds
   * `count`, and stays small for identities that made few requests.
   */
  get capacity(): number {
    return this.#ring.capacity;
  }

  /**
   * Restores persisted state: records `times` (any order) as admissions,
   * together with those already held, keeping at most the `count` latest.
   * Dropping the oldest never changes a decision: the in-window entries are
   * always a newest-suffix, so with `count` newer entries kept the window is
   * full whenever the dropped ones would have counted.
   * @throws RangeError on a non-finite timestamp.
   */
  seed(times: readonly number[]): void {
    for (const t of times) assertTime(t, "seeded timestamp");
    const merged = this.#ring.toArray().concat(times);
    merged.sort((a, b) => a - b);
    this.#ring.replace(merged);
  }

  /**
   * Switches to a new limit (the rule table may change between deploys).
   * When `count` shrinks every held entry is kept: dropping some would let
   * extra requests through if the limit grew back within the window. Entries
   * already dropped as expired are not brought back if `intervalMs` grows.
   * @throws RangeError if `count` or `intervalMs` is not a positive integer.
   */
  setLimit(limit: Limit): void {
    assertLimit(limit);
    this.#count = limit.count;
    this.#intervalMs = limit.intervalMs;
    this.#ring.setMaxLength(Math.max(limit.count, this.#ring.length));
  }

  /**
   * Builds the Decision given how many admissions are in the window after it
   * (`inWindow`, including this one if admitted) and the oldest of them.
   */
  #decision(now: number, allowed: boolean, inWindow: number, oldest: number): Decision {
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
