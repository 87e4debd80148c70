// The two invariants of counting across isolates (docs/counting.md), as properties against the
// reference model on a driven clock: many isolates (2 to 64) serving one client in any
// interleaving, objects restarted, answers lost, isolate clocks a little apart.
//  - never over: no window of `interval` holds more than `count` admissions, whatever happens;
//  - never early at 90%: a client that stays at or below 90% of its limit is never refused.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Counter, LEASE_MIN_COUNT, MemoryCounterStore, SETTLE_MS, type Limit } from "../../../../src/core/limiter/index.ts";
import { IsolateModel, sendAndWait, within } from "./isolate-model.ts";
import { maxInAnyWindow } from "./reference-model.ts";

const limitArb: fc.Arbitrary<Limit> = fc.record({
  count: fc.oneof(fc.integer({ min: 1, max: LEASE_MIN_COUNT - 1 }), fc.integer({ min: LEASE_MIN_COUNT, max: 400 }), fc.constant(1_000)),
  intervalMs: fc.oneof(fc.integer({ min: 100, max: 20_000 }), fc.constant(10_000)),
});

/**
 * How the client's isolates are chosen: round robin, at random, in runs on one isolate, moving on
 * for good, two requests on every isolate then one isolate only (what leaves leases unused
 * elsewhere), or one isolate alone for a while then another.
 */
const spreadArb = fc.constantFrom("round-robin", "random", "runs", "move-on", "warm-then-one", "one-then-another");

/**
 * The client's steps: how long after the last (paced at `pace` times the limit's rate, with bursts
 * and pauses), which isolate (as the spread reads it), and the faults at that moment.
 */
function stepsArb(limit: Limit): fc.Arbitrary<{ gap: number; pick: number; restart: boolean; lost: boolean }[]> {
  return fc.constantFrom(0.5, 0.9, 1.5, 3).chain((pace) => {
    const mean = limit.intervalMs / (limit.count * pace);
    const gap = fc.oneof(
      { weight: 8, arbitrary: fc.integer({ min: 0, max: Math.max(1, Math.round(2 * mean)) }) },
      { weight: 1, arbitrary: fc.constant(0) },
      { weight: 1, arbitrary: fc.integer({ min: 0, max: limit.intervalMs }) },
    );
    const step = fc.record({
      gap,
      pick: fc.nat(),
      restart: fc.integer({ min: 0, max: 199 }).map((n) => n < 2),
      lost: fc.integer({ min: 0, max: 99 }).map((n) => n < 3),
    });
    return fc.array(step, { minLength: 1, maxLength: Math.min(1_500, 3 * limit.count + 50), size: "max" });
  });
}

const scenarioArb = limitArb.chain((limit) =>
  fc.record({
    limit: fc.constant(limit),
    isolates: fc.oneof(fc.integer({ min: 2, max: 16 }), fc.constantFrom(16, 64)),
    skewMs: fc.integer({ min: 0, max: 50 }),
    spread: spreadArb,
    steps: stepsArb(limit),
  }),
);

/** Which isolate serves step `i`. */
function isolateFor(spread: string, i: number, pick: number, k: number): number {
  if (spread === "round-robin") return i % k;
  if (spread === "random") return pick % k;
  if (spread === "runs") return Math.floor(i / (1 + (pick % 50))) % k;
  if (spread === "warm-then-one") return i < 2 * k ? Math.floor(i / 2) : 0;
  if (spread === "one-then-another") return i < 200 ? 0 : 1;
  // "move-on": the client leaves each isolate for good after a while.
  return Math.min(k - 1, Math.floor(i / 40));
}

describe("many isolates on one counter", () => {
  it("property: never more than count in any window: any interleaving, restarts, lost answers, clocks apart", () => {
    fc.assert(
      fc.property(scenarioArb, ({ limit, isolates, skewMs, spread, steps }) => {
        const store = new MemoryCounterStore();
        let counter = new Counter(store, "k");
        const models = Array.from({ length: isolates }, (_, i) => new IsolateModel(`i${i}`, i % 2 === 0 ? skewMs : -skewMs));
        const admitted: number[] = [];
        let now = 1_000_000;
        steps.forEach(({ gap, pick, restart, lost }, i) => {
          now += gap;
          if (restart) counter = new Counter(store, "k");
          const { outcome, at } = sendAndWait(models, models[isolateFor(spread, i, pick, isolates)]!, () => counter, "k", limit, now, lost);
          // A request told to wait is answered later; the client's next one comes after it (time moves one way).
          now = at;
          if (outcome.admitted) admitted.push(at);
        });
        expect(maxInAnyWindow(admitted, limit.intervalMs)).toBeLessThanOrEqual(limit.count);
      }),
      { numRuns: 250 },
    );
    // Property runs are CPU work only: a generous bound, so a machine busy with other work cannot fail them.
  }, 180_000);

  it("property: a client at or below 90% of its limit is never refused: any interleaving, lost answers, clocks apart, restarts after idling", () => {
    fc.assert(
      fc.property(scenarioArb, ({ limit, isolates, skewMs, spread, steps }) => {
        const store = new MemoryCounterStore();
        let counter = new Counter(store, "k");
        const models = Array.from({ length: isolates }, (_, i) => new IsolateModel(`i${i}`, i % 2 === 0 ? skewMs : -skewMs));
        // The client's arrivals, thinned to 90% of the limit in every window (the reference model's view).
        let t = 1_000_000;
        const arrivals = steps.map((step) => ({ ...step, at: (t += step.gap) }));
        const kept = new Set(
          within(
            arrivals.map((a) => a.at),
            limit.intervalMs,
            Math.floor(0.9 * limit.count),
          ),
        );
        let last = Number.NEGATIVE_INFINITY;
        let index = 0;
        let now = Number.NEGATIVE_INFINITY;
        for (const arrival of arrivals) {
          const { pick, restart, lost } = arrival;
          if (!kept.has(arrival.at)) continue;
          kept.delete(arrival.at);
          // A request told to wait delays the client's later ones: time moves one way.
          const at = Math.max(arrival.at, now);
          // The usual restart: an eviction after the object idled (it settled first, so storage is exact).
          if (restart && at - last >= SETTLE_MS) {
            counter.settle(last + SETTLE_MS);
            counter = new Counter(store, "k");
          }
          last = at;
          const answer = sendAndWait(models, models[isolateFor(spread, index++, pick, isolates)]!, () => counter, "k", limit, at, lost);
          now = answer.at;
          const { outcome } = answer;
          if (!outcome.admitted && !outcome.failed)
            expect.fail(`refused at ${at} (Retry-After ${outcome.retryInMs} ms) within 90% of ${limit.count} per ${limit.intervalMs} ms`);
        }
      }),
      { numRuns: 250, examples: [[RESTARTED_WITH_LEASES_OUT]] },
    );
    // Property runs are CPU work only: a generous bound, so a machine busy with other work cannot fail them.
  }, 180_000);
});

/**
 * Found by this property: six isolates hold first-call leases of one unit each when the object,
 * idle for two seconds, restarts; the rest of the client's requests lose their answers. A
 * restarted object that forgot the leases counted their unused units until an interval after their
 * end and refused the client at 24 of 30 (lease-desk.ts, `StoredDesk`).
 */
const RESTARTED_WITH_LEASES_OUT = {
  limit: { count: 30, intervalMs: 10_000 },
  isolates: 16,
  skewMs: 0,
  spread: "round-robin",
  steps: [
    { gap: 0, pick: 0, restart: true, lost: false },
    { gap: 1, pick: 0, restart: true, lost: false },
    { gap: 1, pick: 0, restart: true, lost: false },
    { gap: 1, pick: 0, restart: true, lost: false },
    { gap: 1, pick: 0, restart: true, lost: false },
    { gap: 1, pick: 0, restart: true, lost: false },
    { gap: 1, pick: 0, restart: true, lost: true },
    { gap: 2000, pick: 0, restart: true, lost: true },
    { gap: 1, pick: 0, restart: true, lost: true },
    { gap: 1, pick: 0, restart: true, lost: true },
    { gap: 1, pick: 0, restart: true, lost: true },
    { gap: 1, pick: 0, restart: true, lost: true },
    { gap: 154, pick: 0, restart: true, lost: true },
    { gap: 131, pick: 0, restart: true, lost: true },
    { gap: 82, pick: 0, restart: true, lost: true },
    { gap: 117, pick: 0, restart: true, lost: true },
    { gap: 7, pick: 0, restart: true, lost: true },
    { gap: 1, pick: 0, restart: true, lost: true },
    { gap: 1, pick: 0, restart: true, lost: true },
    { gap: 1, pick: 0, restart: true, lost: true },
    { gap: 1, pick: 0, restart: true, lost: true },
    { gap: 1, pick: 0, restart: true, lost: true },
    { gap: 1, pick: 0, restart: true, lost: true },
    { gap: 1, pick: 0, restart: true, lost: true },
    { gap: 1, pick: 0, restart: true, lost: false },
  ],
};
