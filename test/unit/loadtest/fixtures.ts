// Canned results for the summary and report tests: real analyses of simulated gateways.
import { FixedWindow, SlidingWindow } from "../../../src/limiter/index.ts";
import { analyzeRule, type Answer } from "../../../src/tools/loadtest/analysis.ts";
import type { LoadTestResult, RuleResult } from "../../../src/tools/loadtest/loadtest.ts";
import { mulberry32, simulate, toolTraffic, type Limiter } from "./simulate.ts";

function ruleResult(id: number, name: string, count: number, intervalS: number, limiter: () => Limiter, rate: number, seed: number): RuleResult {
  const timeScale = 60;
  const windowMs = (intervalS * 1000) / timeScale;
  const durationMs = Math.max(6000, 3 * windowMs);
  const random = mulberry32(seed);
  const { steady, burst } = toolTraffic({ windowMs, count, rate, durationMs, burstSize: Math.min(2 * count, 200), bursts: 5, random });
  const net = { toGateway: () => 1 + random() * 8, fromGateway: () => 1 + random() * 8, clockOffsetMs: 250 };
  const answers: Answer[] = [...simulate(limiter(), steady, net, "steady"), ...simulate(limiter(), burst, net, "burst")];
  const { figures, verdict, series } = analyzeRule(
    { count, windowMs, startMs: 0, durationMs, steady: { offsetMs: 0, durationMs }, intendedRate: (2 * count) / (windowMs / 1000), retrySkipped: "not simulated" },
    answers,
  );
  return {
    rule: id,
    name,
    category: "Test",
    identity: "api-key",
    pass: verdict.pass,
    failures: verdict.failures,
    request: { method: "POST", path: `/runs/${name}` },
    limit: { count, intervalS },
    windowMs,
    schedule: { startS: 0, durationS: durationMs / 1000 },
    sharedIdentity: false,
    burstSize: Math.min(2 * count, 200),
    skippedSends: 0,
    figures,
    series,
  };
}

/** Three rules: one that holds, one broken by a fixed window, one whose limit is out of reach. */
export function cannedResult(): LoadTestResult {
  const rules = [
    ruleResult(12, "runs-query-key", 15, 10, () => new SlidingWindow({ count: 15, intervalMs: 167 }), 180, 1),
    ruleResult(5, "repos-key", 100, 60, () => new FixedWindow({ count: 100, intervalMs: 1000 }), 200, 2),
    ruleResult(11, "runs-multipart-key", 6000, 10, () => new SlidingWindow({ count: 6000, intervalMs: 167 }), 200, 3),
  ];
  const pass = rules.every((r) => r.pass);
  return {
    pass,
    exitCode: pass ? 0 : 1,
    region: "us",
    timeScale: 60,
    algorithm: "sliding-window",
    gateway: { kind: "local", url: "(local, stopped)" },
    clientIpVaried: true,
    notes: ["Canned results <for a test> & nothing else."],
    startedAt: "2026-11-21T06:00:00.000Z",
    wallTimeS: 12.3,
    trafficTimeS: 6,
    plannedTimeS: 6,
    options: {},
    rules,
  };
}
