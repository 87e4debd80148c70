import type { Limit, WindowAnswer } from "../../../../src/core/limiter/types.ts";

/**
 * Obviously-correct (and slow) sliding window, straight from the definition:
 * keep every admitted timestamp, filter by `t > now - intervalMs` on each
 * request. Assumes non-decreasing `now`.
 */
export class ReferenceWindow {
  readonly admitted: number[] = [];
  readonly limit: Limit;

  constructor(limit: Limit) {
    this.limit = limit;
  }

  /** The window's answer for a request at `now`; admitted requests are recorded iff `record`. */
  decide(now: number, record: boolean): WindowAnswer {
    const { count, intervalMs } = this.limit;
    const inWindow = this.admitted.filter((t) => t > now - intervalMs);
    const allowed = inWindow.length < count;
    const after = allowed ? [...inWindow, now] : inWindow;
    if (allowed && record) this.admitted.push(now);
    const remaining = count - after.length;
    const resetAt = after.length === 0 ? now : Math.min(...after) + intervalMs;
    const retryAt = remaining > 0 ? now : resetAt;
    return { allowed, limit: count, remaining, resetAt, retryAt };
  }

  /** Admissions with `t > now - intervalMs`. */
  size(now: number): number {
    return this.admitted.filter((t) => t > now - this.limit.intervalMs).length;
  }
}

/**
 * The largest number of `times` (sorted ascending) inside any half-open window
 * `[a, a + intervalMs)`. The maximum is reached with `a` at one of the times,
 * so a two-pointer sweep over them is exhaustive.
 */
export function maxInAnyWindow(times: readonly number[], intervalMs: number): number {
  let best = 0;
  let end = 0;
  for (let start = 0; start < times.length; start++) {
    if (end < start) end = start;
    while (end < times.length && times[end]! < times[start]! + intervalMs) end++;
    best = Math.max(best, end - start);
  }
  return best;
}
