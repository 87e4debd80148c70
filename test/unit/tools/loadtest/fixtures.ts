// Canned results for the summary and report tests: real analyses of simulated gateways (no live
// timing, so nothing depends on the machine's speed).
import { FixedWindow, SlidingWindow } from "../../../../src/core/limiter/index.ts";
import { analyzeRule } from "../../../../tools/loadtest/analysis.ts";
import type { Answer } from "../../../../tools/loadtest/answer.ts";
import type { LoadTestResult, RuleResult } from "../../../../tools/loadtest/loadtest.ts";
import { runVerdict } from "../../../../tools/kit/verdict.ts";
import { failsRun } from "../../../../tools/loadtest/outcome.ts";
import { retryPromise } from "../../../../tools/loadtest/retry.ts";
import { simulate, toolTraffic, type Limiter, type Network } from "./simulate.ts";
import { seededRandom } from "../../../../bench/accuracy/traffic.ts";

const TIME_SCALE = 60;

interface CannedRule {
  readonly id: number;
  readonly name: string;
  readonly count: number;
  readonly intervalS: number;
  readonly limiter: (count: number, intervalMs: number) => Limiter;
  /** The steady client's rate, per second. */
  readonly rate: number;
  readonly seed: number;
  /** Latency to and from the gateway, ms, from a seeded random number in [0, 1). */
  readonly latency?: (u: number) => number;
  /** Simulate the retry client too (fill at once, honour the last refusal's Retry-After). */
  readonly retry?: boolean;
}

const sliding = (count: number, intervalMs: number) => new SlidingWindow({ count, intervalMs });
const fixed = (count: number, intervalMs: number) => new FixedWindow({ count, intervalMs });

/** The retry client against its own counter: a fill of count + 2 at once, then one retry after Retry-After. */
function retryClient(limiter: Limiter, count: number, windowMs: number, net: Network): Answer[] {
  const fill = simulate(
    limiter,
    Array.from({ length: count + 2 }, (_, i) => ({ sendMs: 10 + i * 0.05, kind: "fill" as const })),
    net,
    "retry",
  );
  const promise = retryPromise(fill, windowMs);
  if (!promise?.retryAfterS) return fill;
  return [...fill, ...simulate(limiter, [{ sendMs: promise.recvMs + promise.retryAfterS * 1000, kind: "retry" }], net, "retry")];
}

export function ruleResult(c: CannedRule): RuleResult {
  const windowMs = (c.intervalS * 1000) / TIME_SCALE;
  const intervalMs = Math.round(windowMs);
  const durationMs = Math.max(6000, 3 * windowMs);
  const random = seededRandom(c.seed);
  const latency = c.latency ?? ((u: number) => 1 + u * 8);
  const burstSize = Math.min(2 * c.count, 200);
  const { steady, burst } = toolTraffic({ windowMs, count: c.count, rate: c.rate, durationMs, burstSize, bursts: 5, random });
  const net: Network = { toGateway: () => latency(random()), fromGateway: () => latency(random()), clockOffsetMs: 250 };
  const answers: Answer[] = [
    ...simulate(c.limiter(c.count, intervalMs), steady, net, "steady"),
    ...simulate(c.limiter(c.count, intervalMs), burst, net, "burst"),
    ...(c.retry ? retryClient(c.limiter(c.count, intervalMs), c.count, windowMs, net) : []),
  ];
  const { figures, judgement, series } = analyzeRule(
    {
      count: c.count,
      intervalS: c.intervalS,
      windowMs,
      startMs: 0,
      durationMs,
      steady: { offsetMs: 0, durationMs },
      intendedRate: (2 * c.count) / (windowMs / 1000),
      ...(c.retry ? {} : { retrySkipped: "not simulated in this canned run" }),
    },
    answers,
  );
  return {
    key: `us:${c.id}`,
    rule: c.id,
    region: "us",
    timeScale: TIME_SCALE,
    scaleWhy: `scale ${TIME_SCALE}: --time-scale`,
    name: c.name,
    category: "Test",
    identity: "api-key",
    judgement,
    request: { method: "POST", path: `/runs/${c.name}` },
    limit: { count: c.count, intervalS: c.intervalS },
    windowMs,
    schedule: { startS: 0, durationS: durationMs / 1000 },
    sharedIdentity: false,
    burstSize,
    skippedSends: 0,
    figures,
    series,
  };
}

/** The canned rules: one per outcome the analysis can reach without a broken network. */
export const CANNED_RULES: readonly CannedRule[] = [
  // Holds, retry client admitted after Retry-After.
  { id: 12, name: "runs-query-key", count: 15, intervalS: 10, limiter: sliding, rate: 180, seed: 1, retry: true },
  // A fixed window: caught.
  { id: 5, name: "repos-key", count: 100, intervalS: 60, limiter: fixed, rate: 200, seed: 2 },
  // Out of reach of one client: unjudged, the limit never reached.
  { id: 11, name: "runs-multipart-key", count: 6000, intervalS: 10, limiter: sliding, rate: 200, seed: 3 },
  // A loaded machine: a third of the answers take 0.2 to 1.2 s against a 167 ms window, so windows go blind and none is proven full.
  {
    id: 13,
    name: "runs-query-user",
    count: 15,
    intervalS: 10,
    limiter: sliding,
    rate: 180,
    seed: 4,
    latency: (u) => (u < 0.33 ? 200 + u * 3000 : 40 + u * 60),
  },
];

/** A run of the canned rules, as `runLoadTest` would return it. */
export function cannedResult(): LoadTestResult {
  const rules = CANNED_RULES.map(ruleResult);
  return {
    verdict: runVerdict(rules.some((r) => failsRun(r.judgement.outcome))),
    unjudged: "pass",
    regions: ["us"],
    timeScale: TIME_SCALE,
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
