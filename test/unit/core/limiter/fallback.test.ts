import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { LocalFallback } from "../../../../src/core/limiter/fallback.ts";
import { maxInAnyWindow } from "./reference-model.ts";

const LIMIT = { count: 15, intervalMs: 10_000 };
const T0 = 1_800_000_000_000;
/** What the object said at `at`: `remaining` units left. */
const answered = (remaining: number, at: number) => ({ used: LIMIT.count - remaining, at });

describe("LocalFallback: what an isolate admits while a counter's object fails", () => {
  it("admits at most count of a 10x burst when it knows nothing of the counter", () => {
    const fallback = new LocalFallback();
    const admitted = Array.from({ length: 150 }, () => fallback.decide("c", LIMIT, T0)).filter((d) => d.allowed);
    expect(admitted).toHaveLength(15);
  });

  it("starts from what the object last said: only the remaining units until that window has passed", () => {
    const fallback = new LocalFallback();
    fallback.observe("c", answered(4, T0));
    const early = Array.from({ length: 20 }, () => fallback.decide("c", LIMIT, T0 + 1_000)).filter((d) => d.allowed);
    expect(early).toHaveLength(4);
    // The 11 the object had counted are placed at T0 (as late as they can have been): free at T0 + 10 s.
    expect(fallback.decide("c", LIMIT, T0 + 9_999).allowed).toBe(false);
    expect(fallback.decide("c", LIMIT, T0 + 10_000).allowed).toBe(true);
  });

  it("reports each local admission by its age until a call carrying it is answered, under one id", () => {
    const fallback = new LocalFallback({ caller: "i1" });
    fallback.decide("c", LIMIT, T0);
    fallback.decide("c", LIMIT, T0 + 5);
    const first = fallback.reports("c", LIMIT, T0 + 10);
    expect(first).toEqual([{ id: "i1-1", agesMs: [10, 5] }]);
    // That call was never answered (cancelled): the same report goes again, with a new one beside it.
    fallback.decide("c", LIMIT, T0 + 20);
    const second = fallback.reports("c", LIMIT, T0 + 30);
    expect(second).toEqual([
      { id: "i1-1", agesMs: [30, 25] },
      { id: "i1-2", agesMs: [10] },
    ]);
    fallback.delivered("c", second);
    expect(fallback.reports("c", LIMIT, T0 + 40)).toEqual([]);
  });

  it("leaves out reports whose admissions are all out of the window", () => {
    const fallback = new LocalFallback({ caller: "i1" });
    fallback.decide("c", LIMIT, T0);
    expect(fallback.reports("c", LIMIT, T0 + LIMIT.intervalMs)).toEqual([]);
  });

  it("counts the units leased to it with the object's answer: a lease and the fallback together admit at most count", () => {
    const fallback = new LocalFallback();
    // 5 admitted, and 3 units leased until T0 + 2_500: 8 used.
    fallback.observe("c", { used: 8, at: T0, leased: { units: 3, until: T0 + 2_500 } });
    expect(Array.from({ length: 20 }, () => fallback.decide("c", LIMIT, T0 + 100)).filter((d) => d.allowed)).toHaveLength(7);
    // The 5 leave at T0 + 10 s, the leased units only at T0 + 12.5 s.
    expect(fallback.decide("c", LIMIT, T0 + 10_000).allowed).toBe(true);
    expect(Array.from({ length: 20 }, () => fallback.decide("c", LIMIT, T0 + 10_001)).filter((d) => d.allowed)).toHaveLength(4);
  });

  it("gives the decision back to the object once it has been told everything", () => {
    const fallback = new LocalFallback();
    fallback.decide("c", LIMIT, T0);
    expect(fallback.isActive("c")).toBe(true);
    fallback.delivered("c", fallback.reports("c", LIMIT, T0 + 1));
    fallback.observe("c", answered(13, T0 + 1));
    expect(fallback.isActive("c")).toBe(false);
  });

  it("never admits more than count in any window, whatever the failures, answers and times", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.constantFrom("decide", "decide", "decide", "answer"), fc.integer({ min: 0, max: 3_000 }), fc.integer({ min: 0, max: 15 })), {
          maxLength: 200,
        }),
        (steps) => {
          const fallback = new LocalFallback();
          let now = T0;
          // The object's own view, replayed: what it admitted and when, and what the isolate told it.
          const admissions: number[] = [];
          for (const [kind, step, remaining] of steps) {
            now += step;
            if (kind === "decide") {
              if (fallback.decide("c", LIMIT, now).allowed) admissions.push(now);
            } else {
              // The object answers: it has been told the local admissions, and reports a remaining
              // count consistent with everything admitted in its window.
              fallback.delivered("c", fallback.reports("c", LIMIT, now));
              const inWindow = admissions.filter((t) => t > now - LIMIT.intervalMs).length;
              fallback.observe("c", answered(Math.min(remaining, Math.max(0, LIMIT.count - inWindow)), now));
            }
          }
          expect(maxInAnyWindow(admissions, LIMIT.intervalMs)).toBeLessThanOrEqual(LIMIT.count);
        },
      ),
      { numRuns: 500 },
    );
  });

  it("keeps its memory bounded: past the bound a window makes room once nothing in it is in the window, never before (issue 32)", () => {
    const fallback = new LocalFallback({ maxCounters: 100 });
    for (let i = 0; i < 1_000; i++) fallback.decide(`c${i}`, LIMIT, T0);
    // Each holds an admission still in its window: forgetting one would let it admit count again.
    expect(fallback.isActive("c0")).toBe(true);
    expect(fallback.active).toBe(1_000);
    // An interval later they hold nothing: new windows take their room.
    for (let i = 0; i < 1_000; i++) fallback.decide(`d${i}`, LIMIT, T0 + LIMIT.intervalMs);
    expect(fallback.isActive("c0")).toBe(false);
    expect(fallback.isActive("d999")).toBe(true);
    expect(fallback.active).toBe(1_000);
  });
});
