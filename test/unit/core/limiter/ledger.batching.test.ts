import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { SimulatedObject } from "./durable-object-sim.ts";

describe("write batching", () => {
  test("600 admissions/s against 6000/10s for 20s opens reservations for well under 5% of admissions", () => {
    const object = new SimulatedObject({ count: 6000, intervalMs: 10_000 });
    const writesPerSecond = new Array<number>(20).fill(0);
    for (let i = 0; i < 600 * 20; i++) {
      const now = Math.floor((i * 1000) / 600);
      const before = object.writes;
      expect(object.request(now).allowed).toBe(true);
      const second = Math.floor(now / 1000);
      writesPerSecond[second] = writesPerSecond[second]! + object.writes - before;
    }
    expect(object.admitted.length).toBe(12_000);
    expect(object.writes).toBeLessThan(0.05 * object.admitted.length);
    // After the slow-start ramp of the first second: a handful per second.
    for (const writes of writesPerSecond.slice(1)) expect(writes).toBeLessThanOrEqual(5);
  });

  test("a 100x flood writes only for the admissions, never for denials", () => {
    const object = new SimulatedObject({ count: 15, intervalMs: 10_000 });
    for (let i = 0; i < 1500 * 3; i++) object.request(Math.floor((i * 10_000) / 1500));
    expect(object.admitted.length).toBe(45);
    // Default maxBatch is ceil(15 / 20) = 1 here, so at most one write per admission.
    expect(object.writes).toBeGreaterThan(0);
    expect(object.writes).toBeLessThanOrEqual(object.admitted.length);
  });
});

describe("trickle does not over-reserve", () => {
  const limit = { count: 100, intervalMs: 60_000 };
  const period = 2000;

  test("1 request per 2s against 100/60s: a restart at any point restores at most 2x the true in-window admissions + 1", () => {
    const object = new SimulatedObject(limit);
    for (let i = 0; i < 900; i++) {
      const now = 5_000_000 + i * period;
      object.request(now);
      for (const probe of [now, now + 1, now + period / 2, now + period - 1]) {
        expect(object.restoredSize(probe)).toBeLessThanOrEqual(2 * object.trueSize(probe) + 1);
      }
    }
    // Not vacuous: the trickle really is admitted and counted.
    expect(object.admitted.length).toBe(900);
  });

  test("the same holds with restarts happening at random points", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.integer({ min: 0, max: 14 }).map((x) => x === 0),
          { minLength: 300, maxLength: 300 },
        ),
        fc.integer({ min: 0, max: period - 1 }),
        (restarts, phase) => {
          const object = new SimulatedObject(limit);
          restarts.forEach((restart, i) => {
            const now = 5_000_000 + phase + i * period;
            if (restart) object.restart(now);
            expect(object.request(now).allowed).toBe(true);
            expect(object.restoredSize(now)).toBeLessThanOrEqual(2 * object.trueSize(now) + 1);
            expect(object.windowSize(now)).toBeLessThanOrEqual(2 * object.trueSize(now) + 1);
          });
        },
      ),
      { numRuns: 100 },
    );
  });
});
