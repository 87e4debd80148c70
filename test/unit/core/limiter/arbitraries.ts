import fc from "fast-check";
import type { Limit } from "../../../../src/core/limiter/types.ts";

/** Random limit as in the brief: count 1..50, intervalMs 1..10_000. */
export const limitArb: fc.Arbitrary<Limit> = fc.record({
  count: fc.integer({ min: 1, max: 50 }),
  intervalMs: fc.integer({ min: 1, max: 10_000 }),
});

/**
 * A gap between arrival groups, shaped to hit the interesting cases: zero
 * (same millisecond), small steps, anything within the interval, exactly at
 * the window boundary, and idle gaps longer than the interval.
 */
export function gapArb(intervalMs: number): fc.Arbitrary<number> {
  return fc.oneof(
    { weight: 3, arbitrary: fc.constant(0) },
    { weight: 3, arbitrary: fc.integer({ min: 1, max: Math.max(1, Math.ceil(intervalMs / 25)) }) },
    { weight: 3, arbitrary: fc.integer({ min: 0, max: intervalMs }) },
    { weight: 1, arbitrary: fc.constantFrom(Math.max(0, intervalMs - 1), intervalMs, intervalMs + 1) },
    { weight: 1, arbitrary: fc.integer({ min: intervalMs + 1, max: 3 * intervalMs }) },
  );
}

/** One arrival group: `burst` requests all at the same millisecond, `gap` after the previous group. */
export interface Step {
  gap: number;
  burst: number;
}

/** Steps for a given interval: mostly single requests, sometimes bursts larger than any count. */
export function stepsArb(intervalMs: number, maxLength = 120): fc.Arbitrary<Step[]> {
  const burst = fc.oneof(
    { weight: 6, arbitrary: fc.constant(1) },
    { weight: 3, arbitrary: fc.integer({ min: 2, max: 10 }) },
    { weight: 1, arbitrary: fc.integer({ min: 11, max: 80 }) },
  );
  return fc.array(fc.record({ gap: gapArb(intervalMs), burst }), { minLength: 1, maxLength });
}

/** Start times around the present epoch, plus small ones to catch `now - intervalMs < 0`. */
export const startArb: fc.Arbitrary<number> = fc.oneof(fc.integer({ min: 0, max: 20_000 }), fc.integer({ min: 1_600_000_000_000, max: 2_000_000_000_000 }));

/** Expands steps into the non-decreasing list of arrival times. */
export function arrivalTimes(start: number, steps: readonly Step[]): number[] {
  const times: number[] = [];
  let now = start;
  for (const { gap, burst } of steps) {
    now += gap;
    for (let i = 0; i < burst; i++) times.push(now);
  }
  return times;
}

/** A limit, a start time and arrival steps fitted to the limit's interval. */
export const scenarioArb = limitArb.chain((limit) => fc.record({ limit: fc.constant(limit), start: startArb, steps: stepsArb(limit.intervalMs) }));
