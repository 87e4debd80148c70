import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Counter, MemoryCounterStore, SlidingWindow } from "../../../../src/core/limiter/index.ts";

const limit = { count: 15, intervalMs: 10_000 };

// Batches of up to 8 admissions per reservation (the default for 15 is 1: every reservation
// exact, and nothing left for a snapshot to add).
const options = { maxBatch: 8 };

/** A counter fed `times`, with its store. */
function counterAfter(times: number[]) {
  const store = new MemoryCounterStore();
  const counter = new Counter(store, "k", options);
  for (const t of times) expect(counter.decide(limit, 1, t).verdicts[0]!.allowed).toBe(true);
  return { store, counter };
}
const allowedAt = (counter: Counter, t: number) => counter.decide(limit, 1, t).verdicts[0]!.allowed;

describe("restoring with an idle snapshot", () => {
  const burst = [0, 0, 0, 0, 0, ...Array.from({ length: 10 }, () => 3_000)];

  it("without a snapshot, a restart restores reservations alone: room frees late (over-count)", () => {
    const { store } = counterAfter(burst);
    const restarted = new Counter(store, "k", options);
    expect(restarted.size(limit, 6_000)).toBeGreaterThanOrEqual(15);
    expect(allowedAt(restarted, 10_000)).toBe(false);
  });

  it("after the alarm settles an idle counter, a restart restores its times exactly", () => {
    const { store, counter } = counterAfter(burst);
    expect(counter.settle(6_000)).toBe(13_000); // the last admission leaves the window then
    expect(store.get("k")?.snapshot).toEqual({ at: 6_000, times: burst });
    const restarted = new Counter(store, "k", options);
    expect(allowedAt(restarted, 9_999)).toBe(false);
    expect(allowedAt(restarted, 10_000)).toBe(true); // the promise Retry-After made before the restart
  });

  it("property: settles and restarts at random points never under-count", () => {
    const arrivals = fc.array(fc.tuple(fc.integer({ min: 0, max: 4_000 }), fc.constantFrom("hit", "hit", "hit", "settle", "restart")), {
      minLength: 1,
      maxLength: 80,
    });
    fc.assert(
      fc.property(arrivals, fc.integer({ min: 0, max: 20_000 }), (events, restartAfter) => {
        const store = new MemoryCounterStore();
        let counter = new Counter(store, "k", options);
        const truth = new SlidingWindow(limit);
        let now = 0;
        for (const [gap, event] of events) {
          now += gap;
          if (event === "settle") counter.settle(now);
          else if (event === "restart") counter = new Counter(store, "k", options);
          else {
            const admitted = counter.decide(limit, 1, now).verdicts[0]!.allowed;
            // Admitted only if the true window has room: restored state never under-counts.
            if (admitted) expect(truth.hit(now).allowed).toBe(true);
          }
        }
        const restartAt = now + restartAfter;
        const restored = new Counter(store, "k", options);
        // At every later moment the restored window is at least as full as the true one.
        for (let t = restartAt; t <= restartAt + limit.intervalMs; t += 500) {
          expect(restored.size(limit, t)).toBeGreaterThanOrEqual(truth.size(t));
        }
      }),
      { numRuns: 300 },
    );
  });
});
