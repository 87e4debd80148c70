// One run: for each K a fresh cluster of K isolates, every chosen scenario on it with a fresh API
// key, each timeline analysed as it ends.
import { analyze, type Figures, type Limit, type Timeline } from "./analysis.ts";
import { defaultTimeScale, overridesRefreshMs, type AccuracyOptions, type ScenarioName } from "./args.ts";
import { Client } from "./client.ts";
import { buildGateway, startCluster, type Cluster } from "./cluster.ts";
import { FAULT_SCENARIOS } from "./faults.ts";
import type { Scenario } from "./scenario.ts";
import { BASIC_SCENARIOS } from "./scenarios.ts";
import { PAST_LIMIT_SCENARIOS } from "./past-limit.ts";
import { scaledIntervalMs, targetFor, type Target } from "./target.ts";
import { seededRandom } from "./traffic.ts";
import type { Rtt } from "../edge/rtt.ts";

export const SCENARIOS: ReadonlyMap<string, Scenario> = new Map([...BASIC_SCENARIOS, ...PAST_LIMIT_SCENARIOS, ...FAULT_SCENARIOS].map((s) => [s.name, s]));

export interface ScenarioResult {
  readonly scenario: ScenarioName;
  readonly isolates: number;
  readonly apiKey: string;
  readonly figures: Figures;
  readonly problems: readonly string[];
  readonly notes: readonly string[];
  readonly durationMs: number;
  readonly timeline: Timeline;
}

export interface AccuracyRun {
  readonly target: Target;
  readonly limit: Limit;
  readonly timeScale: number;
  readonly counterTimeoutMs: number;
  readonly overridesRefreshMs: number;
  readonly rtt?: Rtt;
  /** Per K: what the isolates' own module memory and globals showed (cluster.ts, checkIsolation). */
  readonly isolation: Readonly<Record<number, string>>;
  readonly results: readonly ScenarioResult[];
}

/**
 * Each worker of the cluster must be an isolate of its own: a module counter bumped once per
 * request on one isolate only, and a clock skew set on one isolate only, must show there alone.
 */
async function checkIsolation(cluster: Cluster, target: Target): Promise<string> {
  const k = cluster.isolates;
  if (k === 1) return "one isolate";
  await (await cluster.fetch(0, target.path, { method: target.method, headers: { "x-api-key": `isolation-check-${Date.now()}` } })).arrayBuffer();
  await cluster.control(0, "/skew", { ms: 7 });
  const states = await Promise.all(Array.from({ length: k }, (_, i) => cluster.control(i, "/state")));
  await cluster.control(0, "/skew", { ms: 0 });
  const others = states.slice(1);
  const separate = states[0]!.served === 1 && states[0]!.clockOffset === 7 && others.every((s) => s.served === 0 && s.clockOffset === 0);
  if (!separate) {
    const odd = states.filter((s, i) => (i === 0 ? s.served !== 1 || s.clockOffset !== 7 : s.served !== 0 || s.clockOffset !== 0));
    throw new Error(`the ${k} workers do not keep separate module memory and globals: ${JSON.stringify(odd.slice(0, 3))}`);
  }
  return `${k} workers, each its own module memory and globals (a request and a clock skew on isolate-0 seen there only)`;
}

export async function runAccuracy(options: AccuracyOptions, log: (line: string) => void): Promise<AccuracyRun> {
  const target = targetFor(options.row);
  const timeScale = options.timeScale ?? defaultTimeScale(target, options.rtt);
  const limit: Limit = { count: target.count, intervalMs: scaledIntervalMs(target.intervalS, timeScale) };
  const runId = Date.now().toString(36);
  const build = await buildGateway();
  const results: ScenarioResult[] = [];
  const isolation: Record<number, string> = {};
  const settings = {
    timeScale,
    counterTimeoutMs: options.counterTimeoutMs,
    overridesRefreshMs: overridesRefreshMs(options.rtt),
    ...(options.rtt && { rtt: options.rtt }),
  };
  try {
    for (const k of options.ks) {
      const started = performance.now();
      const cluster = await startCluster(build, { isolates: k, ...settings });
      try {
        isolation[k] = await checkIsolation(cluster, target);
        log(`K=${k}: ${k} isolate(s) started in ${((performance.now() - started) / 1000).toFixed(1)} s`);
        for (const name of options.scenarios) {
          const scenario = SCENARIOS.get(name)!;
          const apiKey = `accuracy-${runId}-${name}-k${k}`;
          const client = new Client(cluster, target, apiKey);
          const begun = performance.now();
          // A seed per scenario and K: the same spread of requests in every run.
          const random = seededRandom(k * 1000 + name.length);
          const { timeline, notes } = await scenario.run({ cluster, client, target, limit, random, ...settings });
          const figures = analyze(timeline);
          const roundTripMs = options.rtt ? (options.rtt.kind === "fixed" ? options.rtt.ms : options.rtt.median) : 0;
          const problems = scenario.problems(figures, limit, k, { roundTripMs });
          const durationMs = performance.now() - begun;
          results.push({ scenario: name, isolates: k, apiKey, figures, problems, notes, durationMs, timeline });
          log(
            `K=${k} ${name}: ${figures.admitted} admitted, ${figures.denied} refused, ${problems.length ? problems.join("; ") : "as expected"} (${(durationMs / 1000).toFixed(1)} s)`,
          );
        }
      } finally {
        await cluster.stop();
      }
    }
  } finally {
    await build.cleanup();
  }
  return { target, limit, ...settings, isolation, results };
}
