// A row left unjudged gets one more window on a fresh counter (tools/loadtest/second-try.ts), and
// the verdict stays honest: judged per counter over both tries' answers, from the real limiter
// classes behind a simulated network (simulate.ts), no clock but the answers' own numbers.
import { describe, expect, it } from "vitest";
import { FixedWindow, SlidingWindow } from "../../../../src/core/limiter/index.ts";
import { hostedApiClassifier } from "../../../../src/core/rules/hosted-api.ts";
import { allRules, classifiers, tableOfRule } from "../../../../src/core/rules/tables.ts";
import { analyzeRule, type AnalysisInput } from "../../../../tools/loadtest/analysis.ts";
import { DEFAULTS } from "../../../../tools/loadtest/args.ts";
import { planRun, type PlanOptions } from "../../../../tools/loadtest/plan.ts";
import { canTryAgain, firstTryLine, sayingSecondTry, secondTryPlan, withSecondTry } from "../../../../tools/loadtest/second-try.ts";
import type { RuleJudgement } from "../../../../tools/loadtest/verdict.ts";
import { publishedRow } from "../../../support/rows.ts";
import { simulate, type Network, type Send } from "./simulate.ts";

const options: PlanOptions = {
  ...DEFAULTS,
  region: "us",
  regions: ["us", "eu"],
  timeScale: 1,
  windows: 1,
  minPhaseS: 0,
  budget: 400,
  varyIp: true,
  runId: "t",
};

const judged = (outcome: RuleJudgement["outcome"], window: RuleJudgement["outcome"] = outcome): RuleJudgement => ({
  outcome,
  finding: "at most 741 admitted in any provable 600 s window, limit 750",
  checks: {
    window: { outcome: window, finding: "at most 741 admitted in any provable 600 s window, limit 750", why: "answers took too long" },
    header: { outcome: "held", finding: "h" },
    retry: { outcome: "held", finding: "r" },
  },
});

describe("which rows get a second try", () => {
  const plan = planRun(allRules, options, (r) => classifiers[tableOfRule(r.id)!]);
  const row = (key: string) => plan.rules.find((r) => r.key === key)!;

  it("a row its window check left unjudged, with counters of its own and a steady client that can reach count", () => {
    expect(canTryAgain(row("us:12"), judged("unjudged"), true)).toBe(true);
    expect(canTryAgain(row("us:12"), judged("failed", "unjudged"), true)).toBe(false);
    expect(canTryAgain(row("us:12"), judged("error", "unjudged"), true)).toBe(false);
    expect(canTryAgain(row("us:12"), judged("held"), true)).toBe(false);
    // Against a deployed gateway an IP row cannot have a fresh counter; a key row can.
    expect(canTryAgain(row("us:29"), judged("unjudged"), false)).toBe(false);
    expect(canTryAgain(row("us:12"), judged("unjudged"), false)).toBe(true);
    // A row planned out of reach (its rate capped below count per window) stays unjudged with its reason.
    const capped = planRun([publishedRow(11)], { ...options, ruleRateCap: 200 }, hostedApiClassifier).rules[0]!;
    expect(capped.steadyRate * (capped.windowMs / 1000)).toBeLessThan(capped.count);
    expect(canTryAgain(capped, judged("unjudged"), true)).toBe(false);
  });

  it("runs each such row's steady client alone on a fresh identity, under the budget", () => {
    const rows = ["us:9", "us:10", "eu:29", "us:25"].map(row);
    const second = secondTryPlan(plan, rows, true);
    expect(second.rules.map((r) => r.key).sort()).toEqual(["eu:29", "us:10", "us:25", "us:9"]);
    for (const again of second.rules) {
      const first = row(again.key);
      expect(again.identities.steady.key).not.toBe(first.identities.steady.key);
      for (const phase of ["steady", "burst", "retry"] as const) expect(again.identities.steady.key).not.toBe(first.identities[phase].key);
      expect(again.bursts.offsetsMs).toEqual([]);
      expect(again.retry.kind).toBe("skip");
      expect(again.steady).toMatchObject({ offsetMs: 0, durationMs: first.steady.durationMs, rate: first.steady.rate });
      expect(again.timeScale).toBe(first.timeScale);
    }
    // A fresh address for the IP row, a fresh user for the user row.
    expect(second.rules.find((r) => r.key === "eu:29")!.identities.steady.headers["cf-connecting-ip"]).not.toBe(
      row("eu:29").identities.steady.headers["cf-connecting-ip"],
    );
    for (const t of second.rules.map((r) => r.startMs)) {
      const load = second.rules.filter((r) => r.startMs <= t && t < r.startMs + r.durationMs).reduce((sum, r) => sum + r.steady.rate, 0);
      expect(load).toBeLessThanOrEqual(options.budget);
    }
  });
});

describe("the verdict over both tries", () => {
  // 10 per 1 s; the steady client offers 20/s for 2 s.
  const count = 10;
  const windowMs = 1000;
  const input: AnalysisInput = { count, intervalS: 1, windowMs, startMs: 0, durationMs: 6000, steady: { offsetMs: 0, durationMs: 2000 }, intendedRate: 20 };
  const steady = (fromMs: number): Send[] => Array.from({ length: 40 }, (_, i) => ({ sendMs: fromMs + i * 50, kind: "steady" as const }));
  const quick: Network = { toGateway: () => 2, fromGateway: () => 2, clockOffsetMs: 0 };
  // The first try's answers came back late: every admission took longer than a window.
  const slow: Network = { toGateway: () => 2, fromGateway: () => 1200, clockOffsetMs: 0 };
  const firstTry = simulate(new SlidingWindow({ count, intervalMs: windowMs }), steady(0), slow, "api-key:first");
  const first = analyzeRule(input, firstTry).judgement;

  it("is held when the second try proves a window full and no counter went above count, and says so", () => {
    expect(first.outcome).toBe("unjudged");
    const again = simulate(new SlidingWindow({ count, intervalMs: windowMs }), steady(0), quick, "api-key:again");
    const both = analyzeRule(input, withSecondTry(firstTry, again, 3000));
    expect(both.figures.maxInWindow.admitted).toBe(count);
    const said = sayingSecondTry(both.judgement, firstTryLine(first));
    expect(said.outcome).toBe("held");
    expect(said.why).toMatch(
      /^a second try ran \(the steady client again, on a fresh counter, after the planned traffic\), the first having proved .*, limit 10: unjudged, because .*; a window was proven full/,
    );
    expect(said.checks.window.why).toBe(said.why);
  });

  it("fails when either try saw more than count in one window", () => {
    const broken = simulate(
      new FixedWindow({ count, intervalMs: windowMs }),
      steady(0).map((s) => ({ ...s, sendMs: s.sendMs + 700 })),
      quick,
      "api-key:again",
    );
    const both = sayingSecondTry(analyzeRule(input, withSecondTry(firstTry, broken, 3000)).judgement, firstTryLine(first));
    expect(both.outcome).toBe("failed");
  });

  it("stays unjudged when the second try proves no more than the first", () => {
    const again = simulate(new SlidingWindow({ count, intervalMs: windowMs }), steady(0), slow, "api-key:again");
    expect(sayingSecondTry(analyzeRule(input, withSecondTry(firstTry, again, 3000)).judgement, firstTryLine(first)).outcome).toBe("unjudged");
  });

  it("moves the second try's answers onto the first traffic's clock", () => {
    const moved = withSecondTry([], [{ kind: "steady", identity: "x", sendMs: 5, recvMs: 7, status: 200 }], 1000);
    expect(moved).toEqual([{ kind: "steady", identity: "x", sendMs: 1005, recvMs: 1007, status: 200 }]);
  });
});
