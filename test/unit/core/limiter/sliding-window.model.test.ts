import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { SlidingWindow } from "../../../../src/core/limiter/sliding-window.ts";
import { arrivalTimes, limitArb, startArb, stepsArb } from "./arbitraries.ts";
import { ReferenceWindow } from "./reference-model.ts";

/** What to do at each arrival: mostly hits, with read-only queries mixed in. */
const opArb = fc.constantFrom("hit", "hit", "hit", "hit", "peek", "size");

const scenarioWithOps = limitArb.chain((limit) =>
  fc.record({ start: startArb, steps: stepsArb(limit.intervalMs, 150) }).chain(({ start, steps }) => {
    const times = arrivalTimes(start, steps);
    return fc.record({
      limit: fc.constant(limit),
      times: fc.constant(times),
      ops: fc.array(opArb, { minLength: times.length, maxLength: times.length }),
    });
  }),
);

describe("SlidingWindow vs reference model", () => {
  test("agrees decision-for-decision (allowed, remaining, resetAt, retryAt) on hit, peek and size", () => {
    fc.assert(
      fc.property(scenarioWithOps, ({ limit, times, ops }) => {
        const window = new SlidingWindow(limit);
        const model = new ReferenceWindow(limit);
        times.forEach((now, i) => {
          const op = ops[i]!;
          if (op === "size") {
            expect(window.size(now)).toBe(model.size(now));
            expect(window.isIdle(now)).toBe(model.size(now) === 0);
          } else {
            expect(window[op](now)).toEqual(model.decide(now, op === "hit"));
          }
          expect(window.newestAdmission()).toBe(model.admitted.at(-1));
        });
      }),
      { numRuns: 400 },
    );
  });

  test("peek(now) returns exactly what hit(now) then returns", () => {
    fc.assert(
      fc.property(
        limitArb.chain((limit) => fc.record({ limit: fc.constant(limit), start: startArb, steps: stepsArb(limit.intervalMs) })),
        ({ limit, start, steps }) => {
          const window = new SlidingWindow(limit);
          for (const now of arrivalTimes(start, steps)) {
            const peeked = window.peek(now);
            expect(window.hit(now)).toEqual(peeked);
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});
