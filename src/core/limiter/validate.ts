import type { Limit } from "./types.ts";

/**
 * Throws a RangeError unless `limit.count` and `limit.intervalMs` are positive
 * integers. Limits come from a rule table edited by people, so a typo should
 * fail loudly at load time rather than silently admit everything (NaN
 * compares false) or nothing.
 */
export function assertLimit(limit: Limit): void {
  if (!isPositiveInteger(limit.count)) {
    throw new RangeError(`limit.count must be a positive integer, got ${String(limit.count)}`);
  }
  if (!isPositiveInteger(limit.intervalMs)) {
    throw new RangeError(`limit.intervalMs must be a positive integer, got ${String(limit.intervalMs)}`);
  }
}

/**
 * Throws a RangeError unless `time` is a finite number. A NaN that reached a
 * sorted timestamp buffer would break every later comparison, so it is
 * rejected at the door.
 */
export function assertTime(time: number, what = "now"): void {
  if (!Number.isFinite(time)) {
    throw new RangeError(`${what} must be a finite number of milliseconds, got ${String(time)}`);
  }
}

/** True for 1, 2, 3, ... (safe integers only). */
export function isPositiveInteger(value: number): boolean {
  return Number.isSafeInteger(value) && value > 0;
}
