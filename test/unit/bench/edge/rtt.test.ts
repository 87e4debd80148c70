import { describe, expect, it } from "vitest";
import { seededRandom } from "../../../../bench/accuracy/traffic.ts";
import { isolateWrapperSource } from "../../../../bench/accuracy/wrapper-source.ts";
import { BadArgument, parseRtt, parseRttList, sampleRtt, sampleRttSource } from "../../../../bench/edge/rtt.ts";

describe("parseRtt", () => {
  it("reads a fixed round trip and a log-normal one", () => {
    expect(parseRtt("40")).toEqual({ kind: "fixed", ms: 40 });
    expect(parseRtt("lognormal:40,0.3")).toEqual({ kind: "lognormal", median: 40, sigma: 0.3 });
  });

  it("refuses what is not a round trip, naming the option", () => {
    for (const raw of ["", "-1", "fast", "lognormal:40", "lognormal:40,x", "99999"]) expect(() => parseRtt(raw, "rtt")).toThrow(BadArgument);
    expect(() => parseRtt("x", "rtt")).toThrow(/--rtt/);
  });

  it("reads lists split by commas, or by ; when a log-normal is in them", () => {
    expect(parseRttList("1,10,40").map((r) => r.kind === "fixed" && r.ms)).toEqual([1, 10, 40]);
    expect(parseRttList("10;lognormal:40,0.3")).toEqual([
      { kind: "fixed", ms: 10 },
      { kind: "lognormal", median: 40, sigma: 0.3 },
    ]);
  });
});

describe("sampleRtt", () => {
  it("a fixed round trip is always itself", () => {
    const random = seededRandom(1);
    expect(Array.from({ length: 5 }, () => sampleRtt({ kind: "fixed", ms: 10 }, random))).toEqual([10, 10, 10, 10, 10]);
  });

  it("a log-normal's median is its median, and it has a right tail", () => {
    const random = seededRandom(7);
    const samples = Array.from({ length: 4001 }, () => sampleRtt({ kind: "lognormal", median: 40, sigma: 0.3 }, random)).sort((a, b) => a - b);
    expect(samples[2000]!).toBeGreaterThan(38);
    expect(samples[2000]!).toBeLessThan(42);
    // exp(0.3 * 2.326) * 40 = 80.1 at the 99th percentile
    expect(samples[3960]!).toBeGreaterThan(70);
    expect(samples[3960]!).toBeLessThan(92);
    expect(samples.every((s) => s > 0)).toBe(true);
  });

  it("with sigma 0 is the median exactly", () => {
    expect(sampleRtt({ kind: "lognormal", median: 25, sigma: 0 }, () => 0.5)).toBe(25);
  });

  it("its source, as the isolate wrappers carry it, draws the same values", () => {
    const copied = new Function(`${sampleRttSource()}; return sampleRtt;`)() as typeof sampleRtt;
    const spec = { kind: "lognormal", median: 40, sigma: 0.3 };
    const a = seededRandom(3);
    const b = seededRandom(3);
    expect(Array.from({ length: 20 }, () => copied(spec, a))).toEqual(Array.from({ length: 20 }, () => sampleRtt(spec, b)));
    expect(isolateWrapperSource("isolate-0", 2, { kind: "fixed", ms: 40 })).toContain(sampleRttSource());
    expect(isolateWrapperSource("isolate-0", 2, { kind: "fixed", ms: 40 })).toContain(`let rtt = {"kind":"fixed","ms":40};`);
  });
});
