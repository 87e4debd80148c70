import { describe, expect, it } from "vitest";
import {
  BadArgument,
  DEFAULT_LIMITER_TIMEOUT_MS,
  DEFAULT_CONFIG_REFRESH_MS,
  DEFAULT_TIME_SCALE,
  defaultTimeScale,
  FAULT_NAMES,
  overridesRefreshMs,
  parseAccuracyArgs,
  SCENARIO_NAMES,
} from "../../../../bench/accuracy/args.ts";
import { targetFor } from "../../../../bench/accuracy/target.ts";

describe("parseAccuracyArgs", () => {
  it("defaults to every scenario at K = 1, 4, 16, 64 on row 5", () => {
    expect(parseAccuracyArgs([])).toEqual({
      ks: [1, 4, 16, 64],
      scenarios: [...SCENARIO_NAMES],
      row: 5,
      counterTimeoutMs: DEFAULT_LIMITER_TIMEOUT_MS,
      help: false,
    });
  });

  it("reads K, scenarios (in the table's order, aliases expanded), the time scale, the row and --json", () => {
    const options = parseAccuracyArgs(["--k", "16,4,4", "--scenarios", "warm-many,sequential", "--time-scale", "2.5", "--row", "12", "--json", "out.json"]);
    expect(options).toMatchObject({ ks: [16, 4], scenarios: ["sequential", "warm-many"], timeScale: 2.5, row: 12, json: "out.json" });
    expect(parseAccuracyArgs(["--scenarios", "faults"]).scenarios).toEqual([...FAULT_NAMES]);
    expect(parseAccuracyArgs(["--scenarios", "basic,clock-skew"]).scenarios).toEqual(["sequential", "concurrent", "steady", "warm-many", "clock-skew"]);
    expect(parseAccuracyArgs(["-h"]).help).toBe(true);
  });

  it.each([
    [["--k", "0"], /--k/],
    [["--k", "4,x"], /--k/],
    [["--k", "500"], /--k/],
    [["--scenarios", "burst"], /--scenarios: unknown scenario "burst"/],
    [["--time-scale", "0"], /--time-scale/],
    [["--time-scale", "abc"], /--time-scale/],
    [["--row", "-1"], /--row/],
    [["--json", ""], /--json/],
    [["--rounds", "3"], /--rounds/],
  ])("refuses %j, naming the option", (argv, message) => {
    expect(() => parseAccuracyArgs(argv)).toThrow(BadArgument);
    expect(() => parseAccuracyArgs(argv)).toThrow(message);
  });
});

describe("with round trips", () => {
  const row5 = { count: 100, intervalS: 60 };

  it("keeps the default scale and refresh without them", () => {
    expect(defaultTimeScale(row5, undefined)).toBe(DEFAULT_TIME_SCALE);
    expect(overridesRefreshMs(undefined)).toBe(DEFAULT_CONFIG_REFRESH_MS);
  });

  it("scales windows so a one-at-a-time client can send twice its limit in half of one", () => {
    // 200 requests x (2 x 40 + 20) ms = 20 s; half of 60 / N s holds that for N = 1 only.
    expect(defaultTimeScale(row5, { kind: "fixed", ms: 40 })).toBe(1);
    expect(defaultTimeScale(row5, { kind: "lognormal", median: 40, sigma: 0.3 })).toBe(1);
    // 200 x 40 ms = 8 s: N = 3.
    expect(defaultTimeScale(row5, { kind: "fixed", ms: 10 })).toBe(3);
    expect(defaultTimeScale(row5, { kind: "fixed", ms: 1 })).toBe(DEFAULT_TIME_SCALE);
    // Never below 1: a window longer than published would judge another limit.
    expect(defaultTimeScale(row5, { kind: "fixed", ms: 2000 })).toBe(1);
    for (const ms of [0, 1, 10, 40, 100, 500]) {
      const scale = defaultTimeScale(row5, { kind: "fixed", ms });
      if (scale > 1) expect(2 * row5.count * (2 * ms + 20)).toBeLessThanOrEqual((0.5 * row5.intervalS * 1000) / scale);
    }
  });

  it("runs the gateway's deployed overrides refresh", () => {
    expect(overridesRefreshMs({ kind: "fixed", ms: 40 })).toBe(5000);
  });

  it("takes an explicit --time-scale as given", () => {
    expect(parseAccuracyArgs(["--rtt", "40", "--time-scale", "6"]).timeScale).toBe(6);
    expect(parseAccuracyArgs(["--rtt", "40"]).timeScale).toBeUndefined();
  });
});

describe("targetFor", () => {
  it("derives the request from the row and checks it meets that row", () => {
    expect(targetFor(5)).toEqual({ row: 5, name: "repos-key", method: "GET", path: "/repos", count: 100, intervalS: 60 });
  });

  it("refuses a row not counted per API key, and one not in the table", () => {
    expect(() => targetFor(1)).toThrow(/counted per ip/);
    expect(() => targetFor(999)).toThrow(/not in rules\/hosted-api.json/);
  });

  it("--rtt: a round trip on every isolate-to-object call, fixed or log-normal; refused when not one", () => {
    expect(parseAccuracyArgs(["--rtt", "40"]).rtt).toEqual({ kind: "fixed", ms: 40 });
    expect(parseAccuracyArgs(["--rtt", "lognormal:40,0.3"]).rtt).toEqual({ kind: "lognormal", median: 40, sigma: 0.3 });
    expect(() => parseAccuracyArgs(["--rtt", "soon"])).toThrow(/--rtt/);
  });
});
