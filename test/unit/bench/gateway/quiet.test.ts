import { describe, expect, it } from "vitest";
import { endsQuiet } from "../../../../bench/gateway/quiet.ts";

// Samples are cumulative CPU ms, one every 250 ms.
const options = { windowMs: 1000, maxShare: 0.02, giveUpMs: 10_000 };

describe("endsQuiet", () => {
  it("needs a whole window of samples", () => {
    expect(endsQuiet([0, 0, 0, 0], options)).toBe(false);
    expect(endsQuiet([0, 0, 0, 0, 0], options)).toBe(true);
  });

  it("is quiet when the last window used at most the share of one core", () => {
    // 1000 ms at 2% is 20 ms.
    expect(endsQuiet([0, 1000, 1005, 1010, 1015, 1020], options)).toBe(true);
    expect(endsQuiet([0, 1000, 1005, 1010, 1015, 1021], options)).toBe(false);
  });

  it("looks only at the last window: an earlier busy spell does not count", () => {
    expect(endsQuiet([0, 800, 1600, 1600, 1600, 1600, 1600], options)).toBe(true);
  });
});
