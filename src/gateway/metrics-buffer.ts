import type { Env } from "../env.ts";
import { emptyBatch, isEmpty, mergeBatch, trim, type MetricsBatch } from "../core/metrics/aggregate.ts";
import type { Clock } from "./clock.ts";
import type { GatewaySettings } from "./settings.ts";

/*
 * Where the counts live: each isolate adds up its own decisions in memory and hands the batch to
 * the region's metrics object at most every METRICS_FLUSH_MS (after a request, in waitUntil), and
 * at once before the admin API reads the totals. So the Prometheus endpoint and the dashboard see
 * every isolate's traffic, and a flood costs the metrics object one call per isolate per period,
 * not one per request. In production each decision is also written to Workers Analytics Engine
 * (the ANALYTICS binding), which is built for one data point per event.
 */

/** An isolate's counts not yet handed to the region's metrics object (src/gateway/isolate.ts). */
export class MetricsBuffer {
  pending: MetricsBatch = emptyBatch();
  lastFlush = Number.NEGATIVE_INFINITY;
  flushing: Promise<void> | undefined;
  /**
   * What this isolate let go of while its batches could not be handed over: series points older
   * than the store keeps and limited identities past the store's top (trim, aggregate.ts). Reported
   * on each failed flush's log line; counts of decisions per rule and upstream are never dropped.
   */
  readonly dropped = { seriesPoints: 0, limitedIdentities: 0 };
  readonly clock: Clock;

  constructor(clock: Clock) {
    this.clock = clock;
  }
}

/** The region's metrics object, in the region's jurisdiction (its names hold identity digests). */
export function metricsStore(env: Env, settings: Pick<GatewaySettings, "region" | "jurisdiction">) {
  const namespace = settings.jurisdiction ? env.METRICS.jurisdiction(settings.jurisdiction) : env.METRICS;
  return namespace.getByName(`metrics:${settings.region}`);
}

/**
 * Hands this isolate's counts to the region's metrics object. A batch that fails to arrive is
 * kept and goes with the next flush: counts are never added twice, and never lost while the
 * isolate lives.
 */
export function flushMetrics(buffer: MetricsBuffer, env: Env, settings: GatewaySettings): Promise<void> {
  buffer.flushing ??= (async () => {
    buffer.lastFlush = buffer.clock.now();
    const batch = buffer.pending;
    buffer.pending = emptyBatch();
    if (isEmpty(batch)) return;
    try {
      await metricsStore(env, settings).add(batch);
    } catch (error) {
      mergeBatch(batch, buffer.pending);
      buffer.pending = batch;
      keepWithinBounds(buffer);
      console.log(JSON.stringify({ event: "metrics_flush_failed", region: settings.region, error: String(error), dropped: buffer.dropped }));
    }
  })().finally(() => (buffer.flushing = undefined));
  return buffer.flushing;
}

/**
 * A batch kept while the metrics object is down is held to what the object itself would keep:
 * the last hour of series points and the most limited identities (trim), so it stops growing with
 * time and with every new identity denied. The rule and upstream counts have one entry each per
 * rule and upstream, bounded by the tables, and are kept whole.
 */
function keepWithinBounds(buffer: MetricsBuffer): void {
  const { pending } = buffer;
  const points = () => Object.values(pending.series).reduce((n, bucket) => n + Object.keys(bucket).length, 0);
  const seriesBefore = points();
  const limitedBefore = Object.keys(pending.limited).length;
  trim(pending, buffer.clock.now());
  buffer.dropped.seriesPoints += seriesBefore - points();
  buffer.dropped.limitedIdentities += limitedBefore - Object.keys(pending.limited).length;
}

/** Before the admin API reads the totals: this isolate's counts, including those a flush under way missed. */
export async function flushAll(buffer: MetricsBuffer, env: Env, settings: GatewaySettings): Promise<void> {
  // A flush under way belongs to another request: wait for it on this request's own timer, never
  // on its promise (workerd refuses a request I/O resumed in another request's context).
  while (buffer.flushing) await new Promise((resolve) => setTimeout(resolve, 1));
  await flushMetrics(buffer, env, settings);
}
