import { describe, expect, it } from "vitest";
import { FixedWindow, SlidingWindow } from "../../../../src/core/limiter/index.ts";

// The fixed window is the deliberately broken counter behind LIMITER_ALGORITHM=fixed-window; these
// tests pin down the exact way it breaks, which the load test must detect.
describe("FixedWindow (development-only, deliberately wrong)", () => {
  const limit = { count: 15, intervalMs: 10_000 };

  it("admits count per aligned window", () => {
    const w = new FixedWindow(limit);
    const admitted = Array.from({ length: 20 }, () => w.hit(20_000)).filter((d) => d.allowed).length;
    expect(admitted).toBe(15);
    expect(w.hit(29_999)).toMatchObject({ allowed: false, remaining: 0, retryAt: 30_000 });
    expect(w.hit(30_000).allowed).toBe(true);
  });

  it("admits 2x count within one interval across a boundary, where the sliding window holds", () => {
    const fixed = new FixedWindow(limit);
    const sliding = new SlidingWindow(limit);
    let fixedAdmitted = 0;
    let slidingAdmitted = 0;
    for (const now of [...Array(15).fill(29_999), ...Array(15).fill(30_000)]) {
      if (fixed.hit(now).allowed) fixedAdmitted++;
      if (sliding.hit(now).allowed) slidingAdmitted++;
    }
    expect(fixedAdmitted).toBe(30);
    expect(slidingAdmitted).toBe(15);
  });
});
