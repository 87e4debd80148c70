import type { Context } from "hono";
import { statusClass, type DecisionSample, type UpstreamSample } from "../core/metrics/aggregate.ts";
import { telemetryCounter, type GatewaySettings } from "./settings.ts";
import type { GatewayEnv } from "./types.ts";
import { backgroundOf } from "./execution-context.ts";

/** Counts one rate-limit decision (and writes it to Analytics Engine when bound). */
export function countDecision(c: Context<GatewayEnv>, settings: GatewaySettings, sample: DecisionSample): void {
  c.var.isolate.metrics.record({ decision: sample });
  c.env.ANALYTICS?.writeDataPoint({
    indexes: [String(sample.rule)],
    blobs: [
      "decision",
      settings.region,
      String(sample.rule),
      sample.ruleName,
      sample.outcome,
      sample.decidedBy ?? "",
      (sample.counter && telemetryCounter(settings, sample.counter)) ?? "",
    ],
    doubles: [1, sample.counterMs ?? 0, sample.used ?? 0, sample.limit?.count ?? 0, sample.failed ? 1 : 0],
  });
  scheduleFlush(c, settings);
}

/** Counts a counter failure that decided nothing (failing closed: 503). */
export function countFailure(c: Context<GatewayEnv>, settings: GatewaySettings, rule: { id: number; name: string }): void {
  c.var.isolate.metrics.record({ failure: rule });
  scheduleFlush(c, settings);
}

/** Counts one forwarded request: its upstream, status class and time to response headers. */
export function countUpstream(c: Context<GatewayEnv>, settings: GatewaySettings, sample: UpstreamSample): void {
  c.var.isolate.metrics.record({ upstream: sample });
  c.env.ANALYTICS?.writeDataPoint({
    indexes: [sample.upstream],
    blobs: ["upstream", settings.region, sample.upstream, statusClass(sample.status)],
    doubles: [1, sample.ms, sample.status],
  });
  scheduleFlush(c, settings);
}

function scheduleFlush(c: Context<GatewayEnv>, settings: GatewaySettings): void {
  const buffer = c.var.isolate.metrics;
  if (!buffer.flushDue(settings.metricsFlushMs)) return;
  // No execution context (a bare app.fetch): the admin API's read flushes instead.
  backgroundOf(c)?.(buffer.flush(c.env, settings));
}
