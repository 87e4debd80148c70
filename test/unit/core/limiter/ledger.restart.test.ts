import fc from "fast-check";
import { describe, expect, test } from "vitest";
import type { LedgerOptions } from "../../../../src/core/limiter/ledger.ts";
import { SlidingWindow } from "../../../../src/core/limiter/sliding-window.ts";
import { verdictOf } from "../../../../src/core/limiter/types.ts";
import { arrivalTimes, limitArb, startArb, stepsArb } from "./arbitraries.ts";
import { SimulatedObject } from "./durable-object-sim.ts";
import { maxInAnyWindow } from "./reference-model.ts";

/** Default options, or random ones (including the extremes maxBatch = 1 and spanMs > intervalMs). */
function optionsArb(intervalMs: number): fc.Arbitrary<LedgerOptions | undefined> {
  return fc.oneof(
    fc.constant(undefined),
    fc.record({ maxBatch: fc.integer({ min: 1, max: 64 }), spanMs: fc.integer({ min: 1, max: 2 * intervalMs }) }, { requiredKeys: [] }),
  );
}

const restartScenario = limitArb.chain((limit) =>
  fc.record({ start: startArb, steps: stepsArb(limit.intervalMs, 150), options: optionsArb(limit.intervalMs) }).chain(({ start, steps, options }) => {
    const times = arrivalTimes(start, steps);
    return fc.record({
      limit: fc.constant(limit),
      options: fc.constant(options),
      times: fc.constant(times),
      // Restart before request i; rare enough that ledgers get to ramp up in between.
      restarts: fc.array(
        fc.integer({ min: 0, max: 9 }).map((x) => x === 0),
        {
          minLength: times.length,
          maxLength: times.length,
        },
      ),
    });
  }),
);

describe("ReservationLedger across restarts", () => {
  test("a restart never lets extra requests through: safety holds over the whole run", () => {
    let restartsSeen = 0;
    fc.assert(
      fc.property(restartScenario, ({ limit, options, times, restarts }) => {
        const object = new SimulatedObject(limit, options);
        times.forEach((now, i) => {
          if (restarts[i]) {
            object.restart(now);
            restartsSeen++;
          }
          object.request(now);
          // Storage alone always accounts for every admission still in the window.
          expect(object.restoredSize(now)).toBeGreaterThanOrEqual(object.trueSize(now));
        });
        expect(maxInAnyWindow(object.admitted, limit.intervalMs)).toBeLessThanOrEqual(limit.count);
      }),
      { numRuns: 400 },
    );
    expect(restartsSeen).toBeGreaterThan(100);
  });

  test("with the alarm settling (snapshots, clean-up) at random points, restarts stay safe", () => {
    // The Durable Object's alarm path: exact snapshots after idleness and deletion once stale.
    let snapshots = 0;
    fc.assert(
      fc.property(
        restartScenario,
        fc.array(fc.integer({ min: 0, max: 4 }), { minLength: 1, maxLength: 200 }),
        ({ limit, options, times, restarts }, events) => {
          const object = new SimulatedObject(limit, options);
          times.forEach((now, i) => {
            const event = events[i % events.length];
            if (event === 0) {
              object.settle(now);
              if (object.store.get("counter")?.snapshot) snapshots++;
            }
            if (restarts[i]) object.restart(now);
            object.request(now);
            expect(object.restoredSize(now)).toBeGreaterThanOrEqual(object.trueSize(now));
          });
          expect(maxInAnyWindow(object.admitted, limit.intervalMs)).toBeLessThanOrEqual(limit.count);
        },
      ),
      { numRuns: 300 },
    );
    expect(snapshots).toBeGreaterThan(20);
  });

  test("restarting after every single request is still safe", () => {
    fc.assert(
      fc.property(restartScenario, ({ limit, options, times }) => {
        const object = new SimulatedObject(limit, options);
        for (const now of times) {
          object.restart(now);
          object.request(now);
        }
        expect(maxInAnyWindow(object.admitted, limit.intervalMs)).toBeLessThanOrEqual(limit.count);
      }),
      { numRuns: 150 },
    );
  });

  test("without restarts the ledger never changes a decision", () => {
    fc.assert(
      fc.property(restartScenario, ({ limit, options, times }) => {
        const object = new SimulatedObject(limit, options);
        const plain = new SlidingWindow(limit);
        for (const now of times) expect(object.request(now)).toEqual(verdictOf(plain.hit(now), now));
      }),
      { numRuns: 200 },
    );
  });
});
