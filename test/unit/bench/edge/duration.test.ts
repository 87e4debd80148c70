import { describe, expect, it } from "vitest";
import { busyMs, unionMs } from "../../../../bench/edge/duration.ts";

describe("unionMs", () => {
  it("counts overlapping spells once, disjoint ones apart, in any order", () => {
    expect(unionMs([])).toBe(0);
    expect(unionMs([[0, 10]])).toBe(10);
    expect(
      unionMs([
        [20, 30],
        [0, 10],
      ]),
    ).toBe(20);
    expect(
      unionMs([
        [0, 10],
        [5, 15],
        [15, 20],
      ]),
    ).toBe(20);
    expect(
      unionMs([
        [0, 100],
        [10, 20],
        [30, 40],
      ]),
    ).toBe(100);
  });

  it("a spell of no length adds nothing, and a spell ending before it starts is ignored", () => {
    expect(
      unionMs([
        [5, 5],
        [7, 7],
      ]),
    ).toBe(0);
    expect(
      unionMs([
        [10, 0],
        [0, 3],
      ]),
    ).toBe(3);
  });
});

describe("busyMs", () => {
  it("per object the union over every source (isolates' calls, the owner's alarms), summed over objects", () => {
    const isolateA = { "COUNTERS:a": [[0, 10]] as const, "METRICS:m": [[0, 5]] as const };
    const isolateB = { "COUNTERS:a": [[5, 20]] as const };
    const owner = { "COUNTERS:a": [[30, 31]] as const, "COUNTERS:b": [[0, 2]] as const };
    // a: [0, 20] and [30, 31] = 21; m: 5; b: 2.
    expect(busyMs([isolateA, isolateB, owner])).toBe(28);
  });
});
