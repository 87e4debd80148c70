// The load test against real local gateways (the built bundle on Miniflare, as `npm run loadtest`
// serves it): with the deliberately broken fixed-window counter every row of every table must be
// reported failed (exit status 1), with the real sliding window the rows it judges held.
//
// Kept fast by scaling time and sending little, not by leaving rows out: every row's window is 4
// real seconds and its steady client sends at most 5 requests/s for two windows, so it crosses at
// least one of the fixed window's boundaries with a whole window of admissions before it. A fixed
// window over-admits at every boundary on any row: the first admission after one says r=count-1
// while the last window's admissions are still inside the sliding window, which the RateLimit
// check proves from two of them; a count of 1 (row 28) is caught by the bursts, two admitted in one
// window (plan.ts, analysis.ts). No row needs its limit reached for that, so no row needs its
// count of requests, nor bursts bigger than row 28's three (every other row gets one burst that
// cannot reach its count): about 1,500 requests in all, every row at once, in 16 s of traffic.
import { describe, expect, it } from "vitest";
import { allRules } from "../../../../src/core/rules/tables.ts";
import { exitStatusOf } from "../../../../tools/kit/verdict.ts";
import { DEFAULTS } from "../../../../tools/loadtest/args.ts";
import { runLoadTest, type LoadTestOptions } from "../../../../tools/loadtest/loadtest.ts";

const fast = (algorithm: "sliding-window" | "fixed-window"): LoadTestOptions => ({
  ...DEFAULTS,
  rules: "all",
  regions: ["us"],
  timeScale: { windowS: 4 },
  load: 2,
  windows: 2,
  minPhaseS: 0,
  // A known rate for the plan (no measuring): 5/s per row, 150/s in all.
  capacity: 1000,
  budget: 150,
  ruleRateCap: 5,
  burstCap: 3,
  connections: 32,
  algorithm,
});

describe("npm run loadtest catches a limiter that breaks the limits", () => {
  it("reports every row of every table failed against the fixed-window counter (exit status 1)", { timeout: 300_000 }, async () => {
    const result = await runLoadTest(fast("fixed-window"));
    expect(result.algorithm).toBe("fixed-window");
    expect(result.verdict).toBe("FAIL");
    expect(exitStatusOf(result.verdict)).toBe(1);
    expect(result.rules.map((r) => r.rule)).toEqual(allRules.map((r) => r.id));
    for (const rule of result.rules) {
      const { outcome, checks } = rule.judgement;
      expect(outcome, `row ${rule.rule}: ${rule.judgement.finding}`).toBe("failed");
      expect(rule.figures.errors, `row ${rule.rule}`).toBe(0);
      // Proven from the tool's own timestamps: more than count in one window, or the RateLimit
      // header offering more than count minus the admissions provably still in its window.
      const over = rule.figures.maxInWindow.admitted > rule.limit.count || rule.figures.header.exposure > rule.limit.count;
      expect(over, `row ${rule.rule}`).toBe(true);
      expect([checks.window.outcome, checks.header.outcome], `row ${rule.rule}`).toContain("failed");
    }
  });

  it("reports the rows it judges held against the real sliding window (exit status 0)", { timeout: 300_000 }, async () => {
    // Paced as the command paces them, to windows of 3 s (not 10) crossed once: a correct counter
    // is held wherever its window is full, however short.
    const result = await runLoadTest({
      ...DEFAULTS,
      rules: [12, 28],
      regions: ["us", "eu"],
      capacity: 200,
      connections: 16,
      minWindowS: 3,
      windows: 1,
      minPhaseS: 0,
    });
    expect(result.verdict).toBe("PASS");
    expect(exitStatusOf(result.verdict)).toBe(0);
    expect(result.rules.map((r) => r.key)).toEqual(["us:12", "us:28", "eu:12", "eu:28"]);
    for (const rule of result.rules) {
      // Only what was provably decided is asserted: on a loaded machine answers slower than a
      // window leave it "unjudged" (with the reason), which is not a violation.
      const { outcome, checks } = rule.judgement;
      expect(["held", "unjudged"], `${rule.key}: ${outcome}`).toContain(outcome);
      expect(checks.header.outcome).not.toBe("failed");
      expect(["held", "unjudged"]).toContain(checks.retry.outcome);
      expect(rule.figures.maxInWindow.admitted).toBeLessThanOrEqual(rule.limit.count);
      expect(rule.figures.errors).toBe(0);
    }
  });
});
