/**
 * A rate limit: at most `count` admissions in any sliding window of
 * `intervalMs` milliseconds. Both are positive integers.
 */
export interface Limit {
  count: number;
  intervalMs: number;
}

/**
 * A window's answer for one request at time `now`, in instants of the clock that owns the window:
 * the counter object and an isolate's local fallback pass it on as a Verdict (verdictOf).
 * All times are integer milliseconds since the epoch.
 */
export interface WindowAnswer {
  /** Whether the request is (or, for `peek`, would be) admitted. */
  allowed: boolean;
  /** The limit's `count`, for the `RateLimit-Limit` header. */
  limit: number;
  /** Admissions still possible right now, after this answer (>= 0). */
  remaining: number;
  /**
   * When the window next frees one unit: the oldest admission still in the
   * window plus `intervalMs`. Equals `now` when the window is empty.
   */
  resetAt: number;
  /**
   * Earliest time a further request could be admitted. Equals `now` when room
   * is left after this answer (`remaining > 0`); otherwise the expiry time
   * of the in-window admission whose expiry frees the first unit.
   * Always `now <= retryAt <= now + intervalMs`.
   */
  retryAt: number;
}

/**
 * Who decided a request: the counter object, the isolate's lease (lease.ts) or deny cache
 * (deny-cache.ts), or the isolate's local window while the object could not answer (fallback.ts).
 */
export type DecidedBy = "object" | "lease" | "deny-cache" | "local-fallback";

/**
 * What a request gets from counting: a window's answer as it travels from the counter object to
 * the gateway, durations instead of instants, so the caller never mixes its clock with the
 * object's. The isolate adds who gave it (AttributedVerdict, src/gateway/counting.ts).
 */
export interface Verdict {
  readonly allowed: boolean;
  readonly limit: number;
  readonly remaining: number;
  /** ms until the window next frees one unit (0 when the window is empty). */
  readonly resetInMs: number;
  /** ms until a request could be admitted (0 when there is room now). */
  readonly retryInMs: number;
  /**
   * On a denial, when shorter than `retryInMs`: how long an isolate may answer it again from its
   * deny cache. Units leased to another isolate may be given back before `retryInMs`.
   */
  readonly cacheForMs?: number;
  /**
   * On a refusal made only because units leased to other isolates fill the window: ask again in
   * this many ms, when the first of them is due back (lease-desk.ts). Not a 429: those units may
   * come back unused.
   */
  readonly waitMs?: number;
}

/** The Verdict of a window's `answer`, given at `now`. */
export function verdictOf(answer: WindowAnswer, now: number): Verdict {
  return {
    allowed: answer.allowed,
    limit: answer.limit,
    remaining: answer.remaining,
    resetInMs: answer.resetAt - now,
    retryInMs: answer.retryAt - now,
  };
}
