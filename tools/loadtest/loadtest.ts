// The load test as a function: plan, (start a local gateway), preflight, traffic, analysis.
// `main.ts` wraps it as the command; tests call it directly.
import { randomBytes } from "node:crypto";
import { createWriteStream } from "node:fs";
import { once } from "node:events";
import { Pool } from "undici";
import { allRules, classifiers, tableOfRule } from "../../src/core/rules/tables.ts";
import type { Algorithm } from "../../src/core/limiter/index.ts";
import type { Region } from "../../src/core/rules/schema.ts";
import { CouldNotRun } from "../kit/command.ts";
import { runVerdict, type RunVerdict } from "../kit/verdict.ts";
import { analyzeRule, type RuleFigures } from "./analysis.ts";
import type { Answer } from "./answer.ts";
import { BadArgument } from "./args.ts";
import { startLocalGateway, type LocalGateway } from "./gateway.ts";
import { parsePolicy } from "./headers.ts";
import { failsRun } from "./outcome.ts";
import { planRun, type Plan, type PlanOptions, type RulePlan } from "./plan.ts";
import { executePlan, type Progress } from "./runner.ts";
import type { ChartSeries } from "./series.ts";
import { benchmarkIp } from "./traffic.ts";
import type { RuleJudgement } from "./verdict.ts";

export interface LoadTestOptions extends Omit<PlanOptions, "varyIp" | "runId"> {
  readonly rules: readonly number[] | "all";
  /** A running gateway; without it a local one is started (and stopped). */
  readonly target?: URL;
  readonly connections: number;
  readonly pipelining: number;
  /** Local gateway only: "fixed-window" is the deliberately broken counter. */
  readonly algorithm?: Algorithm;
  /** Writes every answer (JSON lines: rule, kind, identity, send/receive ms, status, r, Retry-After, error). */
  readonly answersFile?: string;
  /** Called once traffic starts, with the live progress (for the display). */
  readonly onStart?: (plan: Plan, progress: Progress) => void;
}

export interface RuleResult {
  readonly rule: number;
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
  readonly figures: RuleFigures;
  readonly series: ChartSeries;
}

export interface LoadTestResult {
  /** PASS when no rule failed or erred (each held or was unjudged). */
  readonly verdict: RunVerdict;
  readonly region: Region;
  readonly timeScale: number;
  readonly algorithm: Algorithm;
  readonly gateway: { readonly kind: "local" | "target"; readonly url: string };
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
export function runNotes(options: { target?: URL; timeScale: number }, plan: Plan): string[] {
  const notes: string[] = [];
  if (options.target) {
    notes.push(
      "Against --target the tool cannot vary the client IP (Cloudflare sets CF-Connecting-IP): IP-keyed rules are tested from one IP, their clients one after another on one counter, and user-ip rules vary only x-user-id.",
    );
  } else {
    notes.push("Local gateway: every client has its own identity (API key, user id, and CF-Connecting-IP from 198.18.0.0/15).");
  }
  if (options.timeScale !== 1) {
    notes.push(
      `Time scale ${options.timeScale}: every interval is divided by ${options.timeScale} (a development-only gateway setting); limits are count per interval/${options.timeScale} s of real time. Retry-After and RateLimit t stay in whole real seconds.`,
    );
  }
  const capped = plan.rules.filter((r) => r.steadyRate < r.intendedRate);
  if (capped.length > 0) {
    notes.push(
      `${capped.length} rule(s) ask for more than one client can send here (${plan.options.ruleRateCap}/s per client, ${plan.options.budget}/s in all): their offered load is below --load x the limit; see "limit reached".`,
    );
  }
  return notes;
}

/**
 * One request per rule with a throwaway identity before the traffic starts: the gateway answers,
 * meets the intended rule, enforces this region's limits and applies the expected time scale.
 */
async function preflight(baseUrl: URL, plan: Plan, timeScale: number): Promise<void> {
  const pool = new Pool(baseUrl.origin, { connections: 4, headersTimeout: 30_000 });
  const prefix = baseUrl.pathname.replace(/\/+$/, "");
  try {
    for (const [i, rp] of plan.rules.entries()) {
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
      if (res.statusCode !== 429 && (res.statusCode < 200 || res.statusCode >= 300)) {
        throw new CouldNotRun(`row ${rp.rule.id}: ${rp.request.method} ${rp.request.path} answered ${res.statusCode}: ${body.slice(0, 300)}`);
      }
      const scale = Number(h("x-tollgate-time-scale") ?? 1);
      if (scale !== timeScale) {
        throw new CouldNotRun(`the gateway applies time scale ${scale}, the tool assumed ${timeScale}` + (timeScale === 1 ? " (a --target running with TIME_SCALE cannot be checked against the published windows)" : ""));
      }
      const policy = parsePolicy(h("ratelimit-policy"));
      if (!policy) throw new CouldNotRun(`row ${rp.rule.id}: the answer carries no RateLimit-Policy header: is ${baseUrl.origin} a tollgate gateway?`);
      if (policy.name !== rp.rule.name) throw new CouldNotRun(`row ${rp.rule.id}: ${rp.request.method} ${rp.request.path} met "${policy.name}" on the gateway, not "${rp.rule.name}": is it running this rule table?`);
      if (policy.quota !== rp.count || policy.window !== rp.intervalS) {
        throw new BadArgument(`--region: the gateway enforces ${policy.quota}/${policy.window} s for row ${rp.rule.id}, the ${plan.options.region} limit is ${rp.count}/${rp.intervalS} s`);
      }
    }
  } finally {
    await pool.close();
  }
}

export async function runLoadTest(options: LoadTestOptions): Promise<LoadTestResult> {
  const startedAt = new Date();
  const wallStart = performance.now();
  const rules = selectRules(options.rules);
  if (rules.length === 0) throw new BadArgument("--rules: no rule selected");
  const runId = randomBytes(4).toString("hex");
  // Each rule is checked against its own upstream's table.
  const plan = planRun(rules, { ...options, varyIp: !options.target, runId }, (rule) => classifiers[tableOfRule(rule.id) ?? "hosted-api"]);
  const algorithm = options.algorithm ?? "sliding-window";

  let gateway: LocalGateway | undefined;
  let baseUrl: URL;
  if (options.target) baseUrl = options.target;
  else {
    try {
      gateway = await startLocalGateway({ region: options.region, timeScale: options.timeScale, algorithm });
    } catch (error) {
      throw new CouldNotRun(`the local gateway did not start: ${(error as Error).message}`);
    }
    baseUrl = gateway.url;
  }

  try {
    await preflight(baseUrl, plan, options.timeScale);
    const execution = executePlan({ baseUrl, plan, connections: options.connections, pipelining: options.pipelining, timeScale: options.timeScale });
    options.onStart?.(plan, execution.progress);
    const answers = await execution.done;
    const trafficTimeS = execution.progress.elapsedMs / 1000;
    if (options.answersFile) await writeAnswers(options.answersFile, answers);

    const results = plan.rules.map((rp) => toRuleResult(rp, answers.get(rp.rule.id) ?? [], execution.progress));
    return {
      verdict: runVerdict(results.some((r) => failsRun(r.judgement.outcome))),
      region: options.region,
      timeScale: options.timeScale,
      algorithm,
      gateway: { kind: options.target ? "target" : "local", url: baseUrl.href },
      clientIpVaried: !options.target,
      notes: runNotes(options, plan),
      startedAt: startedAt.toISOString(),
      wallTimeS: round((performance.now() - wallStart) / 1000, 1),
      trafficTimeS: round(trafficTimeS, 1),
      plannedTimeS: round(plan.durationMs / 1000, 1),
      options: {
        rules: options.rules,
        load: options.load,
        windows: options.windows,
        minPhaseS: options.minPhaseS,
        budget: options.budget,
        ruleRateCap: options.ruleRateCap,
        burstFactor: options.burstFactor,
        burstCap: options.burstCap,
        connections: options.connections,
        pipelining: options.pipelining,
      },
      rules: results,
    };
  } finally {
    await gateway?.stop().catch(() => undefined);
  }
}

async function writeAnswers(file: string, answers: Map<number, readonly Answer[]>): Promise<void> {
  const out = createWriteStream(file);
  for (const [rule, list] of answers) {
    for (const a of [...list].sort((x, y) => x.sendMs - y.sendMs)) {
      if (!out.write(JSON.stringify({ rule, ...a, sendMs: Math.round(a.sendMs * 1000) / 1000, recvMs: Math.round(a.recvMs * 1000) / 1000 }) + "\n")) await once(out, "drain");
    }
  }
  out.end();
  await once(out, "finish");
}

function toRuleResult(rp: RulePlan, answers: Parameters<typeof analyzeRule>[1], progress: Progress): RuleResult {
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
  const skipped = progress.rules.find((r) => r.id === rp.rule.id)?.skipped ?? 0;
  return {
    rule: rp.rule.id,
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
