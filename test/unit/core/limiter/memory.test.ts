import fc from "fast-check";
import { describe, expect, test } from "vitest";
import type { LedgerOptions } from "../../../../src/core/limiter/ledger.ts";
import { SlidingWindow } from "../../../../src/core/limiter/sliding-window.ts";
import type { Limit } from "../../../../src/core/limiter/types.ts";
import { SETTLE_MS } from "../../../../src/core/limiter/counter.ts";
import { arrivalTimes, limitArb, startArb, stepsArb } from "./arbitraries.ts";
import { SimulatedObject } from "./durable-object-sim.ts";

/**
 * Upper bound on `live().length` without restarts. Reservations that matter
 * were opened in the last `intervalMs + spanMs`. Of those, part-used ones
 * (expired early) are disjoint in time: at most one per span. Between two of
 * them, full ones double until `maxBatch`: a ramp of log2(maxBatch) + 1. Full
 * ones at `maxBatch` hold admissions from that horizon, which the limit caps.
 */
function liveBound(limit: Limit, options: LedgerOptions | undefined): number {
  const maxBatch = options?.maxBatch ?? Math.max(1, Math.ceil(limit.count / 20));
  const spanMs = options?.spanMs ?? Math.max(1, Math.floor(limit.intervalMs / 10));
  const horizon = limit.intervalMs + spanMs;
  const partUsed = Math.ceil(horizon / spanMs) + 1;
  const ramp = Math.ceil(Math.log2(maxBatch)) + 1;
  const admissionsInHorizon = Math.ceil(horizon / limit.intervalMs) * limit.count;
  return (partUsed + 2) * ramp + Math.ceil(admissionsInHorizon / maxBatch) + 1;
}

const scenario = limitArb.chain((limit) =>
  fc.record({
    limit: fc.constant(limit),
    start: startArb,
    steps: stepsArb(limit.intervalMs, 200),
    options: fc.oneof(fc.constant(undefined), fc.record({ maxBatch: fc.integer({ min: 1, max: 64 }), spanMs: fc.integer({ min: 1, max: limit.intervalMs }) })),
  }),
);

describe("memory bounds", () => {
  test("the window never holds more than count entries; live() stays bounded; everything is idle one interval later", () => {
    fc.assert(
      fc.property(scenario, ({ limit, start, steps, options }) => {
        const object = new SimulatedObject(limit, options);
        const bound = liveBound(limit, options);
        const times = arrivalTimes(start, steps);
        for (const now of times) {
          object.request(now);
          expect(object.windowSize(now)).toBeLessThanOrEqual(limit.count);
          expect(object.persisted.length).toBeLessThanOrEqual(bound);
        }
        // Clean-up: once the newest admission and its reservation are out of every window, the
        // alarm leaves nothing stored; a moment earlier it still keeps the counter.
        const newest = object.admitted.at(-1)!;
        const spanMs = options?.spanMs ?? Math.max(1, Math.floor(limit.intervalMs / 10));
        const stale = Math.max(newest + spanMs + limit.intervalMs, times.at(-1)! + SETTLE_MS);
        expect(object.settle(Math.max(newest + limit.intervalMs - 1, times.at(-1)!))).toBeDefined();
        expect(object.settle(stale)).toBeUndefined();
        expect(object.store.keys()).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });

  test("storage grows lazily: a few requests against a 6000 limit hold a small buffer", () => {
    const window = new SlidingWindow({ count: 6000, intervalMs: 10_000 });
    expect(window.capacity).toBe(0);
    for (let i = 0; i < 3; i++) window.hit(1000 + i);
    expect(window.capacity).toBeLessThanOrEqual(4);
    for (let i = 3; i < 100; i++) window.hit(1000 + i);
    expect(window.capacity).toBeLessThanOrEqual(128);
    for (let i = 100; i < 20_000; i++) window.hit(1000 + i);
    expect(window.capacity).toBe(6000);
  });

  test("steady 600 admissions/s against 6000/10s keeps live() to a few dozen records", () => {
    const limit = { count: 6000, intervalMs: 10_000 };
    const object = new SimulatedObject(limit);
    let maxLive = 0;
    for (let i = 0; i < 600 * 60; i++) {
      const now = Math.floor((i * 1000) / 600);
      object.request(now);
      maxLive = Math.max(maxLive, object.persisted.length);
    }
    expect(maxLive).toBeLessThanOrEqual(35);
    expect(object.persisted.length).toBeLessThanOrEqual(35);
  });
});
