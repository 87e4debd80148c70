// The load test against a real local gateway (wrangler's programmatic API, as `npm run loadtest`
// starts it): with the deliberately broken fixed-window counter it must report the rules failed
// (exit status 1), with the real sliding window it must report them held.
//
// Rows 12 (15 per 10 s) and 28 (1 per 10 s in us) at time scale 5: two-second windows, long
// enough against this machine's latencies that the bursts (2/3 of a window apart) and the
// RateLimit check catch a fixed window at any phase; see plan.ts and analysis.ts.
import { describe, expect, it } from "vitest";
import { exitStatusOf } from "../../../../tools/kit/verdict.ts";
import { DEFAULTS } from "../../../../tools/loadtest/args.ts";
import { runLoadTest, type LoadTestOptions } from "../../../../tools/loadtest/loadtest.ts";

const options = (algorithm: "sliding-window" | "fixed-window", rules: number[] = [12, 28]): LoadTestOptions => ({
  ...DEFAULTS,
  rules,
  timeScale: 5,
  connections: 16,
  algorithm,
});

describe("npm run loadtest catches a limiter that breaks the limits", () => {
  // Row 12 only: at count 1 (row 28) a breach shows only as two single admissions on either side
  // of a window boundary, which CI's latencies on a fully loaded machine could hide.
  it("reports row 12 failed against the fixed-window counter (exit status 1)", { timeout: 120_000 }, async () => {
    const result = await runLoadTest(options("fixed-window", [12]));
    expect(result.algorithm).toBe("fixed-window");
    expect(result.verdict).toBe("FAIL");
    expect(exitStatusOf(result.verdict)).toBe(1);
    for (const rule of result.rules) {
      expect(rule.judgement.outcome, `row ${rule.rule}`).toBe("failed");
      expect(rule.figures.limitReached).toBe(true);
      // More than count admitted inside one window, proven from the tool's own timestamps.
      expect(rule.figures.maxInWindow.admitted, `row ${rule.rule}`).toBeGreaterThan(rule.limit.count);
      expect(rule.judgement.checks.window).toMatchObject({ outcome: "failed", why: expect.stringMatching(/sent and answered between [\d.]+ s and [\d.]+ s/) });
    }
  });

  it("reports the same rows held against the real sliding window (exit status 0)", { timeout: 120_000 }, async () => {
    const result = await runLoadTest(options("sliding-window"));
    expect(result.verdict).toBe("PASS");
    expect(exitStatusOf(result.verdict)).toBe(0);
    for (const rule of result.rules) {
      // Only what was provably decided is asserted: on a loaded machine answers slower than a
      // window leave it "unjudged" (with the reason), which is not a violation.
      const { outcome, checks } = rule.judgement;
      expect(["held", "unjudged"], `row ${rule.rule}: ${outcome}`).toContain(outcome);
      expect(checks.header.outcome).toBe("held");
      expect(["held", "unjudged"]).toContain(checks.retry.outcome);
      expect(rule.figures.maxInWindow.admitted).toBeLessThanOrEqual(rule.limit.count);
      expect(rule.figures.errors).toBe(0);
    }
  });
});
