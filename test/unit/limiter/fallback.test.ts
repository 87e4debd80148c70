import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { LocalFallback } from "../../../src/limiter/fallback.ts";
import { maxInAnyWindow } from "./reference-model.ts";

const LIMIT = { count: 15, intervalMs: 10_000 };
const T0 = 1_800_000_000_000;
const verdict = (remaining: number) => ({ allowed: true, limit: LIMIT.count, remaining, resetInMs: 0, retryInMs: 0 });

describe("LocalFallback: what an isolate admits while a counter's object fails", () => {
  it("admits at most count of a 10x burst when it knows nothing of the counter", () => {
    const fallback = new LocalFallback();
    const admitted = Array.from({ length: 150 }, () => fallback.decide("c", LIMIT, T0)).filter((d) => d.allowed);
    expect(admitted).toHaveLength(15);
  });

  it("starts from what the object last said: only the remaining units until that window has passed", () => {
    const fallback = new LocalFallback();
    fallback.observe("c", verdict(4), T0);
    const early = Array.from({ length: 20 }, () => fallback.decide("c", LIMIT, T0 + 1_000)).filter((d) => d.allowed);
    expect(early).toHaveLength(4);
    // The 11 the object had counted are placed at T0 (as late as they can have been): free at T0 + 10 s.
    expect(fallback.decide("c", LIMIT, T0 + 9_999).allowed).toBe(false);
    expect(fallback.decide("c", LIMIT, T0 + 10_000).allowed).toBe(true);
  });

  it("hands each local admission to the object once, and takes back those a failed call could not deliver", () => {
    const fallback = new LocalFallback();
    fallback.decide("c", LIMIT, T0);
    fallback.decide("c", LIMIT, T0 + 5);
    const taken = fallback.takeUnreported("c");
    expect(taken).toEqual([T0, T0 + 5]);
    expect(fallback.takeUnreported("c")).toEqual([]);
    fallback.restoreUnreported("c", taken);
    expect(fallback.takeUnreported("c")).toEqual([T0, T0 + 5]);
  });

  it("gives the decision back to the object once it has been told everything", () => {
    const fallback = new LocalFallback();
    fallback.decide("c", LIMIT, T0);
    expect(fallback.isActive("c")).toBe(true);
    fallback.takeUnreported("c");
    fallback.observe("c", verdict(13), T0 + 1);
    expect(fallback.isActive("c")).toBe(false);
  });

  it("never admits more than count in any window, whatever the failures, answers and times", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.constantFrom("decide", "decide", "decide", "answer"), fc.integer({ min: 0, max: 3_000 }), fc.integer({ min: 0, max: 15 })), { maxLength: 200 }),
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
              fallback.takeUnreported("c");
              const inWindow = admissions.filter((t) => t > now - LIMIT.intervalMs).length;
              fallback.observe("c", verdict(Math.min(remaining, Math.max(0, LIMIT.count - inWindow))), now);
            }
          }
          expect(maxInAnyWindow(admissions, LIMIT.intervalMs)).toBeLessThanOrEqual(LIMIT.count);
        },
      ),
      { numRuns: 500 },
    );
  });

  it("keeps its memory bounded", () => {
    const fallback = new LocalFallback(100);
    for (let i = 0; i < 1_000; i++) fallback.decide(`c${i}`, LIMIT, T0);
    expect(fallback.isActive("c0")).toBe(false);
    expect(fallback.isActive("c999")).toBe(true);
  });
});
