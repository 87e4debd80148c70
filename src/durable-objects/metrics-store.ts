import { DurableObject } from "cloudflare:workers";
import { emptyBatch, mergeBatch, trim, type MetricsBatch } from "../core/metrics/aggregate.ts";

const SERIES = "series:";
const seriesKey = (at: string) => `${SERIES}${at.padStart(15, "0")}`;

/**
 * The region's metrics totals (one object per region, `metrics:<region>`): every isolate adds its
 * counts here in batches (src/gateway/metrics.ts), so the admin API's Prometheus endpoint and the
 * dashboard see the traffic of every isolate, not only their own. Durable in this object's
 * storage (an idle object is evicted; its totals must not be). Thin: adding is
 * src/core/metrics/aggregate.ts.
 */
export class MetricsStore extends DurableObject {
  #totals: MetricsBatch | undefined;

  /** The clock; tests replace it through `runInDurableObject`. */
  now: () => number = () => Date.now();

  add(batch: MetricsBatch): void {
    const totals = this.#load();
    mergeBatch(totals, batch);
    const before = new Set(Object.keys(totals.series));
    trim(totals, this.now());
    const kv = this.ctx.storage.kv;
    kv.put("rules", totals.rules);
    kv.put("upstreams", totals.upstreams);
    kv.put("limited", totals.limited);
    for (const at of Object.keys(batch.series)) if (totals.series[at]) kv.put(seriesKey(at), totals.series[at]);
    for (const at of before) if (!totals.series[at]) kv.delete(seriesKey(at));
  }

  /** Everything recorded so far (the last hour of the series). */
  totals(): MetricsBatch {
    const totals = this.#load();
    trim(totals, this.now());
    return totals;
  }

  #load(): MetricsBatch {
    if (this.#totals) return this.#totals;
    const kv = this.ctx.storage.kv;
    const totals = emptyBatch();
    Object.assign(totals.rules, kv.get("rules") ?? {});
    Object.assign(totals.upstreams, kv.get("upstreams") ?? {});
    Object.assign(totals.limited, kv.get("limited") ?? {});
    for (const [key, points] of kv.list<MetricsBatch["series"][string]>({ prefix: SERIES })) {
      totals.series[String(Number(key.slice(SERIES.length)))] = points;
    }
    return (this.#totals = totals);
  }
}
