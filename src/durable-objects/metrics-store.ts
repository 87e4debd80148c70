import { DurableObject } from "cloudflare:workers";
import { emptyBatch, mergeBatch, trim, type MetricsBatch } from "../core/metrics/aggregate.ts";

const SERIES = "series:";
const seriesKey = (at: string) => `${SERIES}${at.padStart(15, "0")}`;
/** The row every hand-over rewrites: the totals and the recent series buckets. */
const TOTALS = "totals";
/** Rows of the layout before TOTALS: still read, deleted at the first hand-over after it. */
const LEGACY_KEYS = ["rules", "upstreams", "limited"] as const;

/**
 * Series buckets this recent live in the TOTALS row: every isolate's hand-over adds to them, so
 * they cost no row of their own per hand-over. An older bucket has a row of its own, written once
 * as it leaves (and again only if a late batch still adds to it).
 */
export const RECENT_SERIES_MS = 60_000;

/** The TOTALS row. */
interface StoredTotals {
  readonly rules: MetricsBatch["rules"];
  readonly upstreams: MetricsBatch["upstreams"];
  readonly limited: MetricsBatch["limited"];
  readonly recent: MetricsBatch["series"];
}

/**
 * The region's metrics totals (one object per region, `metrics:<region>`): every isolate adds its
 * counts here in batches (src/gateway/metrics.ts), so the admin API's Prometheus endpoint and the
 * dashboard see the traffic of every isolate, not only their own. Durable in this object's
 * storage (an idle object is evicted; its totals must not be). Thin: adding is
 * src/core/metrics/aggregate.ts.
 *
 * Storage is billed by rows written, and every isolate of the region hands a batch over every
 * METRICS_FLUSH_MS: a hand-over writes one row (TOTALS) and, at most once per series bucket, the
 * row of a bucket that stops being recent, instead of a row per total and per bucket it touched.
 */
export class MetricsStore extends DurableObject {
  #totals: MetricsBatch | undefined;
  /** Buckets the stored TOTALS row holds. */
  #storedRecent = new Set<string>();
  /** Buckets with a row of their own. */
  readonly #ownRows = new Set<string>();
  /** Storage still holds rows of the layout before TOTALS. */
  #legacy = false;

  /** The clock; tests replace it through `runInDurableObject`. */
  now: () => number = () => Date.now();

  add(batch: MetricsBatch): void {
    const totals = this.#load();
    mergeBatch(totals, batch);
    const now = this.now();
    trim(totals, now);
    const kv = this.ctx.storage.kv;
    const recent: MetricsBatch["series"] = {};
    for (const [at, points] of Object.entries(totals.series)) if (Number(at) >= now - RECENT_SERIES_MS) recent[at] = points;
    kv.put(TOTALS, { rules: totals.rules, upstreams: totals.upstreams, limited: totals.limited, recent } satisfies StoredTotals);
    // A bucket outside the TOTALS row is stored by its own row: written when this batch added to
    // it or when it leaves the TOTALS row; deleted once trimmed.
    for (const at of new Set([...Object.keys(batch.series), ...this.#storedRecent])) {
      if (!totals.series[at] || at in recent) continue;
      kv.put(seriesKey(at), totals.series[at]);
      this.#ownRows.add(at);
    }
    for (const at of this.#ownRows) {
      if (totals.series[at]) continue;
      kv.delete(seriesKey(at));
      this.#ownRows.delete(at);
    }
    this.#storedRecent = new Set(Object.keys(recent));
    if (this.#legacy) for (const key of LEGACY_KEYS) kv.delete(key);
    this.#legacy = false;
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
    const stored = kv.get<StoredTotals>(TOTALS);
    if (stored) {
      Object.assign(totals.rules, stored.rules);
      Object.assign(totals.upstreams, stored.upstreams);
      Object.assign(totals.limited, stored.limited);
    } else {
      const [rules, upstreams, limited] = LEGACY_KEYS.map((key) => kv.get<Record<string, never>>(key));
      Object.assign(totals.rules, rules ?? {});
      Object.assign(totals.upstreams, upstreams ?? {});
      Object.assign(totals.limited, limited ?? {});
      this.#legacy = rules !== undefined || upstreams !== undefined || limited !== undefined;
    }
    for (const [key, points] of kv.list<MetricsBatch["series"][string]>({ prefix: SERIES })) {
      const at = String(Number(key.slice(SERIES.length)));
      this.#ownRows.add(at);
      totals.series[at] = points;
    }
    // A bucket in the TOTALS row is newer there than any row of its own (one written before it
    // came back into the recent span, or by the layout before TOTALS).
    Object.assign(totals.series, stored?.recent ?? {});
    this.#storedRecent = new Set(Object.keys(stored?.recent ?? {}));
    return (this.#totals = totals);
  }
}
