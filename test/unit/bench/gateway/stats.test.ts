import { describe, expect, it } from "vitest";
import { median, pairedRatios, spread } from "../../../../bench/gateway/stats.ts";

describe("median", () => {
  it("is the middle value, or the mean of the two middle ones", () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([7])).toBe(7);
  });

  it("refuses no values", () => {
    expect(() => median([])).toThrow();
  });
});

describe("spread", () => {
  it("is the median and the range of the rounds", () => {
    expect(spread([1200, 1300, 1100])).toEqual({ median: 1200, min: 1100, max: 1300, n: 3 });
  });

  it("leaves out rounds without a figure, and is undefined when none has one", () => {
    expect(spread([undefined, 2, Number.NaN, 4])).toEqual({ median: 3, min: 2, max: 4, n: 2 });
    expect(spread([undefined])).toBeUndefined();
  });
});

describe("pairedRatios", () => {
  it("divides each round by the baseline's run of the same round", () => {
    expect(pairedRatios([300, 600], [1200, 1200])).toEqual([0.25, 0.5]);
  });

  it("skips a round either side lacks, or whose baseline is zero", () => {
    expect(pairedRatios([300, undefined, 500, 400], [1000, 1000, 0, undefined])).toEqual([0.3]);
  });
});
