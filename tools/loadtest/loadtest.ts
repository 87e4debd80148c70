// The load test as a function: (build the local gateways), measure the target, pace every row,
// plan, (serve a gateway per region and scale), preflight, traffic, analysis.
// `main.ts` wraps it as the command; tests call it directly.
import { randomBytes } from "node:crypto";
import { createWriteStream } from "node:fs";
import { once } from "node:events";
import { Pool } from "undici";
import { allRules, classifiers, tableOfRule } from "../../src/core/rules/tables.ts";
import type { Algorithm } from "../../src/core/limiter/index.ts";
import type { Rule } from "../../src/core/rules/load.ts";
import type { Region } from "../../src/core/rules/schema.ts";
import { CouldNotRun } from "../kit/command.ts";
import { runVerdict, type RunVerdict } from "../kit/verdict.ts";
import { analyzeRule, type RuleFigures } from "./analysis.ts";
import type { Answer } from "./answer.ts";
import { BadArgument } from "../kit/args.ts";
import { measureCapacity, type Capacity } from "./capacity.ts";
import { parsePolicy } from "./headers.ts";
import { gatewayKeyOf, prepareLocalGateways, type LocalGateways, type PreparedGateways } from "./local-gateways.ts";
import { failsRun, type UnjudgedPolicy } from "./outcome.ts";
import { fixedPace, MAX_TIME_SCALE, paceRow, rowRateCap, runBudget } from "./pacing.ts";
import { planRun, type Plan, type PlanOptions, type RegionPace, type RulePlan } from "./plan.ts";
import { executePlan, type Progress } from "./runner.ts";
import type { ChartSeries } from "./series.ts";
import { benchmarkIp } from "./traffic.ts";
import type { RuleJudgement } from "./verdict.ts";
import { canTryAgain, firstTryLine, sayingSecondTry, secondTryPlan, withSecondTry, type SecondTry } from "./second-try.ts";

export interface LoadTestOptions extends Omit<PlanOptions, "varyIp" | "runId" | "timeScale" | "region" | "regions" | "budget"> {
  readonly rules: readonly number[] | "all";
  /** Every region to test, each row in each, in one run. */
  readonly regions: readonly Region[];
  /**
   * "auto": each row its own scale, paced by the measured capacity (pacing.ts); a number: that
   * scale for every row; `{ windowS }`: each row scaled to that real window, its limit reached or
   * not (for checks that need no full window: the fixed-window test's RateLimit check).
   */
  readonly timeScale: number | "auto" | { readonly windowS: number };
  /** Requests/s for the whole run; without it, the measured capacity's `share`. */
  readonly budget?: number;
  /** The share of the measured capacity the run plans to use. */
  readonly share: number;
  /** The shortest real window a row is paced to. */
  readonly minWindowS: number;
  /** Requests/s the target answers, when known: no measuring then. */
  readonly capacity?: number;
  /** A running gateway; without it local ones are started (and stopped). */
  readonly target?: URL;
  readonly connections: number;
  readonly pipelining: number;
  /** Local gateways only: "fixed-window" is the deliberately broken counter. */
  readonly algorithm?: Algorithm;
  /** Local gateways only: the first port of the range they listen on (0: any free ports). */
  readonly port?: number;
  /** "fail": an unjudged row fails the run, as a failed one does. */
  readonly unjudged?: UnjudgedPolicy;
  /** Writes every answer (JSON lines: rule, kind, identity, send/receive ms, status, r, Retry-After, error). */
  readonly answersFile?: string;
  /** Called once the capacity is known and the plan made, before traffic, with lines to print. */
  readonly onPlan?: (plan: Plan, lines: readonly string[]) => void;
  /** Called once traffic starts, with the live progress (for the display); again for second tries. */
  readonly onStart?: (plan: Plan, progress: Progress) => void;
  /** Rows left unjudged get one more window on a fresh counter (second-try.ts); false: none. */
  readonly secondTry?: boolean;
  /** Called before second tries run, with lines to print. */
  readonly onSecondTry?: (plan: Plan, lines: readonly string[]) => void;
}

export interface RuleResult {
  /** "us:12": the row in its region. */
  readonly key: string;
  readonly rule: number;
  readonly region: Region;
  /** The row's own time scale, and why it got it (pacing.ts). */
  readonly timeScale: number;
  readonly scaleWhy: string;
  readonly name: string;
  readonly category: string;
  readonly identity: string;
  /** The rule's outcome with its reason, and each check's (outcome.ts, verdict.ts). */
  readonly judgement: RuleJudgement;
  readonly request: { readonly method: string; readonly path: string };
  readonly limit: { readonly count: number; readonly intervalS: number };
  /** The interval as the gateway applied it (real ms). */
  readonly windowMs: number;
  readonly schedule: { readonly startS: number; readonly durationS: number };
  readonly sharedIdentity: boolean;
  readonly burstSize: number;
  /** Steady sends skipped because the client already had its cap of requests in flight. */
  readonly skippedSends: number;
  /** Present when the row took a second try (second-try.ts): what the first proved, and when the second ran. */
  readonly secondTry?: SecondTry;
  readonly figures: RuleFigures;
  readonly series: ChartSeries;
}

export interface LoadTestResult {
  /** PASS when no rule failed or erred (each held, or unjudged unless `unjudged` is "fail"). */
  readonly verdict: RunVerdict;
  readonly unjudged: UnjudgedPolicy;
  readonly regions: readonly Region[];
  /** One scale for every row, or "per row" when each was paced (RuleResult.timeScale). */
  readonly timeScale: number | "per row";
  readonly algorithm: Algorithm;
  readonly gateway: { readonly kind: "local" | "target"; readonly url: string };
  /** What the target answered when measured, and the rate the run planned from it. */
  readonly capacity?: Capacity & { readonly budget: number };
  readonly clientIpVaried: boolean;
  readonly notes: readonly string[];
  readonly startedAt: string;
  readonly wallTimeS: number;
  readonly trafficTimeS: number;
  readonly plannedTimeS: number;
  readonly options: Record<string, unknown>;
  readonly rules: readonly RuleResult[];
}

const round = (x: number, digits = 2) => Math.round(x * 10 ** digits) / 10 ** digits;

/** The rows to test: every row of every upstream's table (rules/*.json) for "all". */
export function selectRules(rules: readonly number[] | "all") {
  return rules === "all" ? [...allRules] : allRules.filter((r) => rules.includes(r.id));
}

/** Notes printed with the results: what this run could and could not vary. */
export function runNotes(
  options: { target?: URL; timeScale: LoadTestOptions["timeScale"]; sourceIps?: readonly string[] },
  plan: Plan,
  capacity?: Capacity & { budget: number },
): string[] {
  const notes: string[] = [];
  if (capacity) {
    notes.push(
      `Capacity: the ${options.target ? "target" : "local gateway"} answered ${capacity.rate} requests/s (p50 ${capacity.latencyP50Ms} ms) over ${capacity.seconds} s with every connection busy; the run planned ${capacity.budget}/s.`,
    );
  }
  if (options.target) notes.push(...targetNotes(plan, options.sourceIps ?? []));
  else notes.push("Local gateways: every client has its own identity (API key, user id, and CF-Connecting-IP from 198.18.0.0/15).");
  const scales = [...new Set(plan.rules.map((r) => r.timeScale))].sort((a, b) => a - b);
  if (options.timeScale === "auto" && !options.target) {
    notes.push(
      `Each row has its own time scale (${scales.join(", ")}): its interval is divided by it on a gateway of its own (TIME_SCALE, a development-only setting), so its limit is count per interval/scale of real time; counts and identities are the published ones. Retry-After and RateLimit t stay in whole real seconds.`,
    );
  } else if (scales.some((k) => k !== 1)) {
    notes.push(
      `Time scale ${scales.join(", ")}: every interval is divided by it (a development-only gateway setting); limits are count per interval/scale of real time. Retry-After and RateLimit t stay in whole real seconds.`,
    );
  }
  const capped = plan.rules.filter((r) => r.steadyRate < r.intendedRate);
  if (capped.length > 0) {
    notes.push(
      `${capped.length} row(s) ask for more than one client can send here (${plan.options.ruleRateCap}/s per client, ${plan.options.budget}/s in all): their offered load is below --load x the limit; see "limit reached".`,
    );
  }
  return notes;
}

/**
 * Against a deployed gateway the tool varies only what a client controls: which rows one client
 * address can judge, and why.
 */
export function targetNotes(plan: Plan, sourceIps: readonly string[]): string[] {
  const ownAddresses = sourceIps.length >= 3;
  const ipRows = [...new Set(plan.rules.filter((r) => r.rule.identity === "ip").map((r) => r.rule.id))];
  const userRows = [...new Set(plan.rules.filter((r) => r.rule.identity === "user-ip").map((r) => r.rule.id))];
  const notes = [
    `Against --target the gateway takes the client IP from the socket (Cloudflare sets CF-Connecting-IP), so the tool cannot choose it.` +
      (sourceIps.length > 0 ? ` It sends from ${sourceIps.join(", ")} (--source-ips).` : " It sends from one address."),
    `API-key rows are judged from any one address: each client has a key of its own.`,
  ];
  if (userRows.length > 0)
    notes.push(
      `User-at-IP rows (${userRows.join(", ")}) are judged from one address: each client has a user id of its own, and the counter is the user at that address.`,
    );
  if (ipRows.length > 0) {
    notes.push(
      ownAddresses
        ? `IP rows (${ipRows.join(", ")}): each client sends from an address of its own (${sourceIps.slice(0, 3).join(", ")}), so each has a counter of its own.`
        : `IP rows (${ipRows.join(", ")}) share one counter per address: from ${sourceIps.length === 2 ? "fewer than three addresses" : "one address"} their three clients run one after another on it (retry first, a quiet window, then steady and bursts), and they are judged only if nothing else sends to that row from this address meanwhile; --source-ips with three addresses gives each client its own.`,
    );
  }
  const slow = plan.rules.filter((r) => r.durationMs > 20 * 60_000).map((r) => r.rule.id);
  if (slow.length > 0)
    notes.push(
      `Rows ${[...new Set(slow)].join(", ")} run in real time here (a deployed gateway refuses TIME_SCALE): each needs ${Math.round(Math.max(...plan.rules.map((r) => r.durationMs)) / 60_000)} minutes or so.`,
    );
  return notes;
}

/**
 * One request per row with a throwaway identity before the traffic starts: the gateway answers,
 * meets the intended rule, enforces this region's limits and applies the row's time scale.
 */
async function preflight(baseUrlOf: (rp: RulePlan) => URL, plan: Plan): Promise<void> {
  const pools = new Map<string, Pool>();
  try {
    for (const [i, rp] of plan.rules.entries()) {
      const baseUrl = baseUrlOf(rp);
      const localAddress = rp.identities.steady.localAddress;
      const poolKey = `${baseUrl.origin} ${localAddress ?? ""}`;
      if (!pools.has(poolKey))
        pools.set(poolKey, new Pool(baseUrl.origin, { connections: 4, headersTimeout: 30_000, ...(localAddress ? { localAddress } : {}) }));
      const pool = pools.get(poolKey)!;
      const prefix = baseUrl.pathname.replace(/\/+$/, "");
      const headers: Record<string, string> = { ...rp.identities.steady.headers, "user-agent": "tollgate-loadtest" };
      if (headers["x-api-key"]) headers["x-api-key"] += "-preflight";
      if (headers["x-user-id"]) headers["x-user-id"] += "-preflight";
      if (headers["cf-connecting-ip"]) headers["cf-connecting-ip"] = benchmarkIp(100_000 + i);
      let res;
      try {
        res = await pool.request({ method: rp.request.method, path: prefix + rp.request.path, headers });
      } catch (error) {
        throw new CouldNotRun(`the gateway at ${baseUrl.origin} did not answer: ${(error as Error).message}`);
      }
      const body = await res.body.text();
      const h = (name: string) => {
        const v = res.headers[name];
        return Array.isArray(v) ? v.join(", ") : v;
      };
      // Any answer the gateway counted will do: an upstream may refuse the sample request itself (401, 404).
      if (res.statusCode < 200 || res.statusCode >= 500) {
        throw new CouldNotRun(`row ${rp.rule.id}: ${rp.request.method} ${rp.request.path} answered ${res.statusCode}: ${body.slice(0, 300)}`);
      }
      const scale = Number(h("x-tollgate-time-scale") ?? 1);
      if (scale !== rp.timeScale) {
        throw new CouldNotRun(
          `the gateway applies time scale ${scale}, the tool assumed ${rp.timeScale}` +
            (rp.timeScale === 1 ? " (a --target running with TIME_SCALE cannot be checked against the published windows)" : ""),
        );
      }
      const policy = parsePolicy(h("ratelimit-policy"));
      if (!policy) throw new CouldNotRun(`row ${rp.rule.id}: the answer carries no RateLimit-Policy header: is ${baseUrl.origin} a tollgate gateway?`);
      if (policy.name !== rp.rule.name)
        throw new CouldNotRun(
          `row ${rp.rule.id}: ${rp.request.method} ${rp.request.path} met "${policy.name}" on the gateway, not "${rp.rule.name}": is it running this rule table?`,
        );
      if (policy.quota !== rp.count || policy.window !== rp.intervalS) {
        throw new BadArgument(
          `--region: the gateway enforces ${policy.quota}/${policy.window} s for row ${rp.rule.id}, the ${rp.region} limit is ${rp.count}/${rp.intervalS} s`,
        );
      }
    }
  } finally {
    await Promise.all([...pools.values()].map((p) => p.close()));
  }
}

/** Each row's scale in each region: paced by the capacity, or one for all (--time-scale, --target). */
function pacer(options: LoadTestOptions, capacity: number): (rule: Rule, region: Region) => RegionPace {
  const pacing = { capacity, share: options.share, load: options.load, ruleRateCap: options.ruleRateCap, minWindowS: options.minWindowS };
  return (rule, region) => {
    const row = { count: rule.limits[region].count, intervalS: rule.limits[region].interval };
    if (options.target) return { region, ...fixedPace(row, 1, pacing, "a deployed gateway runs in real time") };
    if (typeof options.timeScale === "object") {
      const k = Math.min(MAX_TIME_SCALE, row.intervalS / options.timeScale.windowS);
      return { region, ...fixedPace(row, k, pacing, `every window ${options.timeScale.windowS} s`) };
    }
    if (options.timeScale !== "auto") return { region, ...fixedPace(row, options.timeScale, pacing, "--time-scale") };
    return { region, ...paceRow(row, pacing) };
  };
}

export async function runLoadTest(options: LoadTestOptions): Promise<LoadTestResult> {
  const startedAt = new Date();
  const wallStart = performance.now();
  const rules = selectRules(options.rules);
  if (rules.length === 0) throw new BadArgument("--rules: no rule selected");
  if (options.regions.length === 0) throw new BadArgument("--region: no region selected");
  const runId = randomBytes(4).toString("hex");
  const algorithm = options.algorithm ?? "sliding-window";
  const sourceIps = options.sourceIps ?? [];

  let prepared: PreparedGateways | undefined;
  let gateways: LocalGateways | undefined;
  try {
    if (!options.target) {
      try {
        prepared = await prepareLocalGateways({ algorithm, port: options.port ?? 0 });
      } catch (error) {
        throw new CouldNotRun(`the local gateway did not start: ${(error as Error).message}`);
      }
    }

    // The target's capacity first: every row is paced by it.
    let capacity: (Capacity & { budget: number }) | undefined;
    let budget = options.budget;
    if (options.capacity === undefined) {
      const measured = await measureOn(options, prepared, rules, runId);
      budget ??= runBudget({ capacity: measured.rate, share: options.share });
      capacity = { ...measured, budget };
    }
    const capacityRate = options.capacity ?? capacity!.rate;
    budget ??= runBudget({ capacity: capacityRate, share: options.share });
    const ruleRateCap = rowRateCap({
      capacity: capacityRate,
      share: options.share,
      load: options.load,
      ruleRateCap: options.ruleRateCap,
      minWindowS: options.minWindowS,
    });

    // Each rule is checked against its own upstream's table.
    const plan = planRun(
      rules,
      { ...options, region: options.regions[0]!, timeScale: 1, budget, ruleRateCap, varyIp: !options.target, runId, sourceIps },
      (rule) => classifiers[tableOfRule(rule.id) ?? "hosted-api"],
      pacer(options, capacityRate),
    );
    const notes = runNotes({ ...options, sourceIps }, plan, capacity);
    options.onPlan?.(plan, [...notes, ...plan.rules.map((rp) => `row ${rp.rule.id} ${rp.region} ${rp.rule.name}: ${rp.scaleWhy}`)]);

    let baseUrlOf: (rp: RulePlan) => URL;
    if (options.target) {
      const target = options.target;
      baseUrlOf = () => target;
    } else {
      try {
        gateways = await prepared!.serve(plan.rules.map((rp) => ({ region: rp.region, timeScale: rp.timeScale })));
      } catch (error) {
        throw new CouldNotRun(`the local gateways did not start: ${(error as Error).message}`);
      }
      const urls = gateways.urls;
      baseUrlOf = (rp) => urls.get(gatewayKeyOf(rp))!;
    }

    await preflight(baseUrlOf, plan);
    const trafficStart = performance.now();
    const execution = executePlan({ baseUrlOf, plan, pipelining: options.pipelining });
    options.onStart?.(plan, execution.progress);
    const answers = await execution.done;
    let results = plan.rules.map((rp) => toRuleResult(rp, answers.get(rp.key) ?? [], execution.progress.rules));
    let trafficTimeS = execution.progress.elapsedMs / 1000;

    // A row left unjudged gets one more window on a fresh counter, judged over both tries' answers.
    const again = plan.rules.filter((rp, i) => options.secondTry !== false && canTryAgain(rp, results[i]!.judgement, !options.target));
    if (again.length > 0) {
      const second = secondTryPlan(plan, again, !options.target);
      const firstLines = new Map(plan.rules.map((rp, i) => [rp.key, firstTryLine(results[i]!.judgement)]));
      options.onSecondTry?.(
        second,
        second.rules.map(
          (rp) =>
            `second try: row ${rp.rule.id} ${rp.region} ${rp.rule.name}, its steady client on a fresh counter for ${round(rp.steady.durationMs / 1000, 1)} s from +${round(rp.startMs / 1000, 1)} s; the first proved ${firstLines.get(rp.key)}`,
        ),
      );
      const offsetMs = performance.now() - trafficStart;
      const secondRun = executePlan({ baseUrlOf, plan: second, pipelining: options.pipelining });
      options.onStart?.(second, secondRun.progress);
      const secondAnswers = await secondRun.done;
      results = plan.rules.map((rp, i) => {
        const sp = second.rules.find((r) => r.key === rp.key);
        if (!sp) return results[i]!;
        const first = firstLines.get(rp.key)!;
        const both = withSecondTry(answers.get(rp.key) ?? [], secondAnswers.get(rp.key) ?? [], offsetMs);
        answers.set(rp.key, both);
        const ranTo = offsetMs + sp.startMs + sp.durationMs;
        const result = toRuleResult({ ...rp, durationMs: Math.max(rp.durationMs, ranTo - rp.startMs) }, both, execution.progress.rules);
        return {
          ...result,
          // The row's slot and offered rate stay the first try's; the chart and the verdict cover both.
          schedule: results[i]!.schedule,
          figures: { ...result.figures, offeredRate: results[i]!.figures.offeredRate, steadyUtilization: results[i]!.figures.steadyUtilization },
          judgement: sayingSecondTry(result.judgement, first),
          secondTry: { first, startS: round((offsetMs + sp.startMs) / 1000), durationS: round(sp.durationMs / 1000), identity: sp.identities.steady.key },
        };
      });
      trafficTimeS = (offsetMs + secondRun.progress.elapsedMs) / 1000;
    }
    if (options.answersFile) await writeAnswers(options.answersFile, answers);

    const scales = [...new Set(results.map((r) => r.timeScale))];
    return {
      verdict: runVerdict(results.some((r) => failsRun(r.judgement.outcome, options.unjudged))),
      unjudged: options.unjudged ?? "pass",
      regions: options.regions,
      timeScale: scales.length === 1 ? scales[0]! : "per row",
      algorithm,
      gateway: {
        kind: options.target ? "target" : "local",
        url: options.target ? options.target.href : [...gateways!.urls.values()].map((u) => u.origin).join(" "),
      },
      ...(capacity ? { capacity } : {}),
      clientIpVaried: !options.target,
      notes,
      startedAt: startedAt.toISOString(),
      wallTimeS: round((performance.now() - wallStart) / 1000, 1),
      trafficTimeS: round(trafficTimeS, 1),
      plannedTimeS: round(plan.durationMs / 1000, 1),
      options: {
        rules: options.rules,
        regions: options.regions,
        timeScale: options.timeScale,
        load: options.load,
        windows: options.windows,
        minPhaseS: options.minPhaseS,
        minWindowS: options.minWindowS,
        share: options.share,
        budget,
        ruleRateCap,
        burstFactor: options.burstFactor,
        burstCap: options.burstCap,
        connections: options.connections,
        pipelining: options.pipelining,
        ...(sourceIps.length ? { sourceIps } : {}),
      },
      rules: results,
    };
  } finally {
    await gateways?.stop().catch(() => undefined);
    await prepared?.dispose().catch(() => undefined);
  }
}

/** Measures the target, or a local gateway at scale 1 started for the purpose and stopped. */
async function measureOn(options: LoadTestOptions, prepared: PreparedGateways | undefined, rules: readonly Rule[], runId: string): Promise<Capacity> {
  const region = options.regions[0]!;
  const measure = (baseUrl: URL) =>
    measureCapacity({
      baseUrl,
      region,
      rules,
      connections: options.connections,
      runId,
      ...(options.sourceIps?.[0] ? { localAddress: options.sourceIps[0] } : {}),
    });
  if (options.target) return measure(options.target);
  let local: LocalGateways;
  try {
    local = await prepared!.serve([{ region, timeScale: 1 }]);
  } catch (error) {
    throw new CouldNotRun(`the local gateway did not start: ${(error as Error).message}`);
  }
  try {
    return await measure(local.urls.get(gatewayKeyOf({ region, timeScale: 1 }))!);
  } finally {
    await local.stop();
  }
}

async function writeAnswers(file: string, answers: Map<string, readonly Answer[]>): Promise<void> {
  const out = createWriteStream(file);
  for (const [rule, list] of answers) {
    for (const a of [...list].sort((x, y) => x.sendMs - y.sendMs)) {
      if (
        !out.write(
          JSON.stringify({
            rule: Number(rule.split(":")[1]),
            region: rule.split(":")[0],
            ...a,
            sendMs: Math.round(a.sendMs * 1000) / 1000,
            recvMs: Math.round(a.recvMs * 1000) / 1000,
          }) + "\n",
        )
      )
        await once(out, "drain");
    }
  }
  out.end();
  await once(out, "finish");
}

function toRuleResult(rp: RulePlan, answers: Parameters<typeof analyzeRule>[1], progress: Progress["rules"]): RuleResult {
  const { figures, judgement, series } = analyzeRule(
    {
      count: rp.count,
      intervalS: rp.intervalS,
      windowMs: rp.windowMs,
      startMs: rp.startMs,
      durationMs: rp.durationMs,
      steady: rp.steady,
      intendedRate: rp.intendedRate,
      ...(rp.retry.kind === "skip" ? { retrySkipped: rp.retry.reason } : {}),
    },
    answers,
  );
  const skipped = progress.find((r) => r.key === rp.key)?.skipped ?? 0;
  return {
    key: rp.key,
    rule: rp.rule.id,
    region: rp.region,
    timeScale: rp.timeScale,
    scaleWhy: rp.scaleWhy,
    name: rp.rule.name,
    category: rp.rule.category,
    identity: rp.rule.identity,
    judgement,
    request: rp.request,
    limit: { count: rp.count, intervalS: rp.intervalS },
    windowMs: round(rp.windowMs, 3),
    schedule: { startS: round(rp.startMs / 1000), durationS: round(rp.durationMs / 1000) },
    sharedIdentity: rp.sharedIdentity,
    burstSize: rp.bursts.size,
    skippedSends: skipped,
    figures,
    series,
  };
}
