import type { Disposition } from "../core/metrics/aggregate.ts";
import type { DecidedBy } from "../core/limiter/index.ts";
import type { Rule } from "../core/rules/load.ts";
import type { PublishedLimit } from "../core/rules/schema.ts";
import { telemetryCounter, type GatewaySettings } from "./settings.ts";
import type { AttributedVerdict } from "./counting.ts";
import type { Background } from "./execution-context.ts";
import type { RegionRuntime } from "./region-runtime.ts";
import { ceilSeconds } from "./rate-limit-headers.ts";
import type { Override } from "../core/overrides/types.ts";

/** A decision as its log line says it: hashed counter names only, never a raw key, user id or header. */
export interface DecisionLine {
  readonly event: Disposition;
  readonly region: string;
  readonly rule: number;
  /** `<region>:<rule>:<identity digest>`; left out in the EU (settings.ts, identitiesInTelemetry). */
  readonly counter?: string;
  readonly decidedBy?: DecidedBy;
  /** The effective limit, `count/interval` in seconds. */
  readonly limit?: string;
  readonly remaining?: number;
  readonly retryAfter?: number;
  readonly counterMs?: number;
  /**
   * The override that decided, or set the limit or mode, if any: its id, or in the EU
   * (identitiesInTelemetry off) `"identity"` for an identity override, whose id names one identity.
   */
  readonly override?: string;
  /** DECISION_LOG_SAMPLE, on a line that was sampled. */
  readonly sampled?: number;
}

/**
 * What the gateway made of one request on its rule, as the rate-limit middleware knows it once the
 * request is decided: its disposition, its verdict when it was counted, the limit and the override.
 * The decision log writes it as a DecisionLine, the metrics count it as a DecisionSample.
 */
export interface Decision {
  readonly rule: Rule;
  readonly region: string;
  /** The counter's name (hashed identity): for the region's metrics object; logs carry it only where allowed. */
  readonly counter: string;
  readonly outcome: Disposition;
  readonly verdict?: AttributedVerdict;
  readonly limit?: PublishedLimit;
  readonly counterMs?: number;
  readonly override?: Override;
}

/** Everything one decision leaves behind: its metrics (metrics.ts) and its log line. */
export function observeDecision(runtime: RegionRuntime, background: Background | undefined, d: Decision): void {
  const { verdict } = d;
  const { settings } = runtime;
  runtime.metrics.decision(
    {
      rule: d.rule.id,
      ruleName: d.rule.name,
      outcome: d.outcome,
      decidedBy: verdict?.decidedBy,
      failed: verdict?.decidedBy === "local-fallback",
      used: verdict && verdict.limit - verdict.remaining,
      counterMs: d.counterMs,
      limit: d.limit,
      counter: d.counter,
    },
    background,
  );
  logDecision(d, settings.decisionLogSample, settings);
}

/**
 * Writes one structured JSON line per decision. Denials, shadow denials, blocks and exemptions
 * decided by a counter or an override are all logged; admissions, and denials answered from the
 * deny cache (a flood would otherwise cost a line per request), are logged with probability
 * `sample` (DECISION_LOG_SAMPLE), and say so (`sampled`). A line not written is never built.
 */
export function logDecision(d: Decision, sample: number, settings: Pick<GatewaySettings, "identitiesInTelemetry">, random: () => number = Math.random): void {
  const sampled = d.outcome === "admitted" || d.verdict?.decidedBy === "deny-cache";
  if (sampled && !(random() < sample)) return;
  console.log(JSON.stringify(decisionLine(d, sampled ? sample : undefined, settings)));
}

function decisionLine(d: Decision, sampled: number | undefined, settings: Pick<GatewaySettings, "identitiesInTelemetry">): DecisionLine {
  const { verdict } = d;
  // Keys in this order, absent ones left out (JSON.stringify drops undefined).
  return {
    event: d.outcome,
    region: d.region,
    rule: d.rule.id,
    counter: telemetryCounter(settings, d.counter),
    decidedBy: verdict?.decidedBy,
    remaining: verdict?.remaining,
    retryAfter: verdict && !verdict.allowed ? ceilSeconds(verdict.retryInMs) : undefined,
    limit: d.limit && `${d.limit.count}/${d.limit.interval}`,
    counterMs: d.counterMs,
    override: telemetryOverride(settings, d.override),
    sampled,
  };
}

/**
 * An override as a log line may carry it. A rule override names a rule; an identity override's id
 * names exactly one identity (one key, user or address), so in the EU the line says only that one
 * applied (docs/identity-data.md).
 */
export function telemetryOverride(settings: Pick<GatewaySettings, "identitiesInTelemetry">, override: Override | undefined): string | undefined {
  if (!override) return undefined;
  return override.kind === "identity" && !settings.identitiesInTelemetry ? "identity" : override.id;
}
