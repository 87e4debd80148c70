/**
 * A rate limit: at most `count` admissions in any sliding window of
 * `intervalMs` milliseconds. Both are positive integers.
 */
export interface Limit {
  count: number;
  intervalMs: number;
}

/**
 * The outcome of asking a limiter about one request at time `now`.
 * All times are integer milliseconds since the epoch.
 */
export interface Decision {
  /** Whether the request is (or, for `peek`, would be) admitted. */
  allowed: boolean;
  /** The limit's `count`, for the `RateLimit-Limit` header. */
  limit: number;
  /** Admissions still possible right now, after this decision (>= 0). */
  remaining: number;
  /**
   * When the window next frees one unit: the oldest admission still in the
   * window plus `intervalMs`. Equals `now` when the window is empty.
   */
  resetAt: number;
  /**
   * Earliest time a further request could be admitted. Equals `now` when room
   * is left after this decision (`remaining > 0`); otherwise the expiry time
   * of the in-window admission whose expiry frees the first unit.
   * Always `now <= retryAt <= now + intervalMs`.
   */
  retryAt: number;
}
