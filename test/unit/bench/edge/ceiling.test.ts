import { describe, expect, it } from "vitest";
import { callsPerSecond, ceiling, simulate } from "../../../../bench/edge/ceiling.ts";

describe("the ceiling simulation", () => {
  it("one key spread over isolates: the simulated calls agree with the round-trip model", () => {
    const load = simulate({ keyRates: [600], isolates: 64, rttMs: 40, objectsPerRule: 64, durationS: 10, seed: 2 });
    const model = 64 * callsPerSecond(600 / 64, 40);
    expect(Math.abs(load.callsPerS - model) / model).toBeLessThan(0.05);
    // every call on the key's one object
    expect(load.busiestObjectCallsPerS).toBe(load.callsPerS);
  });

  it("a key far from any coalescing makes one call per request; a busy one coalesces", () => {
    expect(callsPerSecond(1, 40)).toBeCloseTo(1, 1);
    expect(callsPerSecond(10_000, 40)).toBeCloseTo(25, 1);
    const thin = simulate({ keyRates: Array.from({ length: 200 }, () => 1), isolates: 256, rttMs: 40, objectsPerRule: 64, durationS: 5, seed: 3 });
    expect(thin.callsPerS).toBe(thin.requestsPerS);
  });

  it("the ceiling keeps the busiest object within the limit, and more objects raise it", () => {
    const traffic = { keyRates: Array.from({ length: 2000 }, () => 1), isolates: 256, rttMs: 40, durationS: 2, seed: 4 };
    const at64 = ceiling({ ...traffic, objectsPerRule: 64 }, 1000, 8);
    const at128 = ceiling({ ...traffic, objectsPerRule: 128 }, 1000, 8);
    expect(at64.load.busiestObjectCallsPerS).toBeLessThanOrEqual(1000);
    expect(at128.load.requestsPerS).toBeGreaterThan(at64.load.requestsPerS * 1.5);
  });
});
