import type { Context } from "hono";
import type { Outcome } from "../admin/metrics/aggregate.ts";
import { operatingSettings } from "../admin/settings.ts";
import type { Rule } from "../rules/load.ts";
import type { PublishedLimit } from "../rules/schema.ts";
import type { Counted } from "./counter.ts";
import { countDecision } from "./metrics.ts";
import { ceilSeconds } from "./rate-limit-headers.ts";
import type { GatewayEnv } from "./types.ts";

/** One decision as logged: hashed counter names only, never a raw key, user id or header. */
export interface DecisionLine {
  readonly event: Outcome;
  readonly region: string;
  readonly rule: number;
  /** `<region>:<rule>:<identity digest>`. */
  readonly counter: string;
  readonly decidedBy?: "object" | "lease" | "deny-cache" | "local-fallback";
  /** The effective limit, `count/interval` in seconds. */
  readonly limit?: string;
  readonly remaining?: number;
  readonly retryAfter?: number;
  readonly counterMs?: number;
  /** The override that decided, or set the limit or mode, if any. */
  readonly override?: string;
}

/**
 * Writes one structured JSON line per decision. Denials, shadow denials, blocks and exemptions
 * decided by a counter or an override are all logged; admissions, and denials answered from the
 * deny cache (a flood would otherwise cost a line per request), are logged with probability
 * `sample` (DECISION_LOG_SAMPLE), and say so (`sampled`).
 */
export function logDecision(line: DecisionLine, sample: number, random: () => number = Math.random): void {
  const sampled = line.event === "admitted" || line.decidedBy === "deny-cache";
  if (sampled && !(random() < sample)) return;
  console.log(JSON.stringify(sampled ? { ...line, sampled: sample } : line));
}

/** What the rate-limit middleware knows once a request is decided. */
export interface Decision {
  readonly rule: Rule;
  readonly region: string;
  /** The counter's name (hashed identity), as logs have always carried it. */
  readonly counter: string;
  readonly outcome: Outcome;
  readonly counted?: Counted;
  readonly limit?: PublishedLimit;
  readonly counterMs?: number;
  readonly override?: string;
}

/** Everything one decision leaves behind: its metrics (metrics.ts) and its log line. */
export function observeDecision(c: Context<GatewayEnv>, d: Decision): void {
  const { counted } = d;
  countDecision(c, {
    rule: d.rule.id,
    ruleName: d.rule.name,
    outcome: d.outcome,
    ...(counted && { decidedBy: counted.decidedBy, failed: counted.decidedBy === "local-fallback", used: counted.limit - counted.remaining }),
    ...(d.counterMs !== undefined && { counterMs: d.counterMs }),
    ...(d.limit && { limit: d.limit }),
    counter: d.counter,
  });
  logDecision(
    {
      event: d.outcome,
      region: d.region,
      rule: d.rule.id,
      counter: d.counter,
      ...(counted && { decidedBy: counted.decidedBy, remaining: counted.remaining }),
      ...(counted && !counted.allowed && { retryAfter: ceilSeconds(counted.retryInMs) }),
      ...(d.limit && { limit: `${d.limit.count}/${d.limit.interval}` }),
      ...(d.counterMs !== undefined && { counterMs: d.counterMs }),
      ...(d.override && { override: d.override }),
    },
    operatingSettings(c.env).decisionLogSample,
  );
}
