import type { Limit, WindowAnswer } from "./types.ts";
import { assertLimit } from "./validate.ts";

/**
 * A fixed-window counter: at most `count` admissions per window `[k * intervalMs, (k + 1) *
 * intervalMs)`. **Deliberately wrong for this product**: `count` admissions at the end of one
 * window and `count` more at the start of the next put `2 * count` inside one interval. It exists
 * only behind the development setting `LIMITER_ALGORITHM=fixed-window`, so the load test can prove
 * that it catches a limiter that breaks the published limits.
 */
export class FixedWindow {
  readonly #limit: Limit;
  #windowStart = Number.NEGATIVE_INFINITY;
  #admitted = 0;

  constructor(limit: Limit) {
    assertLimit(limit);
    this.#limit = limit;
  }

  hit(now: number): WindowAnswer {
    const { count, intervalMs } = this.#limit;
    const start = Math.floor(now / intervalMs) * intervalMs;
    if (start !== this.#windowStart) {
      this.#windowStart = start;
      this.#admitted = 0;
    }
    const allowed = this.#admitted < count;
    if (allowed) this.#admitted++;
    const resetAt = start + intervalMs;
    const remaining = count - this.#admitted;
    return { allowed, limit: count, remaining, resetAt, retryAt: remaining > 0 ? now : resetAt };
  }
}
