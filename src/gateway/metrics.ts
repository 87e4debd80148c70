import type { Context } from "hono";
import type { Env } from "../env.ts";
import { recordDecision, recordFailure, recordUpstream, statusClass, type DecisionSample, type UpstreamSample } from "../core/metrics/aggregate.ts";
import { telemetryCounter, type GatewaySettings } from "./settings.ts";
import { flushMetrics } from "./metrics-buffer.ts";
import type { GatewayEnv } from "./types.ts";

/** Counts one rate-limit decision (and writes it to Analytics Engine when bound). */
export function countDecision(c: Context<GatewayEnv>, settings: GatewaySettings, sample: DecisionSample): void {
  const buffer = c.var.isolate.metrics;
  const now = buffer.clock.now();
  recordDecision(buffer.pending, sample, now);
  c.env.ANALYTICS?.writeDataPoint({
    indexes: [String(sample.rule)],
    blobs: ["decision", settings.region, String(sample.rule), sample.ruleName, sample.outcome, sample.decidedBy ?? "", (sample.counter && telemetryCounter(settings, sample.counter)) ?? ""],
    doubles: [1, sample.counterMs ?? 0, sample.used ?? 0, sample.limit?.count ?? 0, sample.failed ? 1 : 0],
  });
  scheduleFlush(c, settings, now);
}

/** Counts a counter failure that decided nothing (failing closed: 503). */
export function countFailure(c: Context<GatewayEnv>, settings: GatewaySettings, rule: { id: number; name: string }): void {
  const buffer = c.var.isolate.metrics;
  recordFailure(buffer.pending, rule.id, rule.name);
  scheduleFlush(c, settings, buffer.clock.now());
}

/** Counts one forwarded request: its upstream, status class and time to response headers. */
export function countUpstream(c: Context<GatewayEnv>, settings: GatewaySettings, sample: UpstreamSample): void {
  const buffer = c.var.isolate.metrics;
  recordUpstream(buffer.pending, sample);
  c.env.ANALYTICS?.writeDataPoint({
    indexes: [sample.upstream],
    blobs: ["upstream", settings.region, sample.upstream, statusClass(sample.status)],
    doubles: [1, sample.ms, sample.status],
  });
  scheduleFlush(c, settings, buffer.clock.now());
}

function scheduleFlush(c: Context<GatewayEnv>, settings: GatewaySettings, now: number): void {
  const buffer = c.var.isolate.metrics;
  if (buffer.flushing || now - buffer.lastFlush < settings.metricsFlushMs) return;
  let waitUntil: (promise: Promise<unknown>) => void;
  try {
    const ctx = c.executionCtx;
    waitUntil = (promise) => ctx.waitUntil(promise);
  } catch {
    return; // no execution context (a bare app.fetch): the admin API's read flushes instead
  }
  waitUntil(flushMetrics(buffer, c.env, settings));
}
