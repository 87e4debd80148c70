import type { Env } from "../env.ts";
import {
  emptyBatch,
  isEmpty,
  mergeBatch,
  recordDecision,
  recordFailure,
  recordUpstream,
  trim,
  type DecisionSample,
  type MetricsBatch,
  type UpstreamSample,
} from "../core/metrics/aggregate.ts";
import type { Clock } from "./clock.ts";
import { inJurisdiction } from "./objects.ts";
import type { GatewaySettings } from "./settings.ts";

/*
 * Where the counts live: each isolate adds up its own decisions in memory and hands the batch to
 * the region's metrics object at most every METRICS_FLUSH_MS (after a request, in waitUntil), and
 * at once before the admin API reads the totals. So the Prometheus endpoint and the dashboard see
 * every isolate's traffic, and a flood costs the metrics object one call per isolate per period,
 * not one per request. In production each decision is also written to Workers Analytics Engine
 * (the ANALYTICS binding), which is built for one data point per event.
 */

/** One thing the request path counts: a decision, a counter failure that decided nothing, or a forwarded request. */
export type MetricsEvent =
  { readonly decision: DecisionSample } | { readonly failure: { readonly id: number; readonly name: string } } | { readonly upstream: UpstreamSample };

/** What a buffer let go of while its batches could not be handed over (MetricsBuffer.dropped). */
export interface Dropped {
  readonly seriesPoints: number;
  readonly limitedIdentities: number;
}

/** The region's metrics object, in the region's jurisdiction (its names hold identity digests). */
export function metricsStore(env: Env, settings: Pick<GatewaySettings, "region" | "jurisdiction">) {
  return inJurisdiction(env.METRICS, settings.jurisdiction).getByName(`metrics:${settings.region}`);
}

/**
 * An isolate's counts not yet handed to its region's metrics object (its region runtime holds one,
 * src/gateway/region-runtime.ts): the request path `record`s, and a flush hands the batch over. A
 * batch that fails to arrive is kept and goes with the next flush: counts are never added twice,
 * and never lost while the isolate lives.
 *
 * @example
 * const buffer = new MetricsBuffer(clock, () => metricsStore(env, settings), settings.region);
 * buffer.record({ upstream: { upstream: "hosted-api", status: 200, ms: 12 } });
 * if (buffer.flushDue(settings.metricsFlushMs)) ctx.waitUntil(buffer.flush());
 */
export class MetricsBuffer {
  readonly #clock: Clock;
  readonly #store: () => Pick<ReturnType<typeof metricsStore>, "add">;
  readonly #region: string;
  #pending: MetricsBatch = emptyBatch();
  #lastFlush = Number.NEGATIVE_INFINITY;
  #flushing: Promise<void> | undefined;
  /**
   * What this isolate let go of while its batches could not be handed over: series points older
   * than the store keeps and limited identities past the store's top (trim, aggregate.ts). Reported
   * on each failed flush's log line; counts of decisions per rule and upstream are never dropped.
   */
  #dropped = { seriesPoints: 0, limitedIdentities: 0 };

  /**
   * @param store the region's metrics object, reached for each hand-over (metricsStore)
   * @param region named on the log line of a failed hand-over
   */
  constructor(clock: Clock, store: () => Pick<ReturnType<typeof metricsStore>, "add">, region: string) {
    this.#clock = clock;
    this.#store = store;
    this.#region = region;
  }

  /** Adds one event to this isolate's batch, at the isolate's time. */
  record(event: MetricsEvent): void {
    if ("decision" in event) recordDecision(this.#pending, event.decision, this.#clock.now());
    else if ("failure" in event) recordFailure(this.#pending, event.failure.id, event.failure.name);
    else recordUpstream(this.#pending, event.upstream);
  }

  /** Whether a flush is due now: none is under way and the last began at least `everyMs` ago. */
  flushDue(everyMs: number): boolean {
    return !this.#flushing && this.#clock.now() - this.#lastFlush >= everyMs;
  }

  /** The counts not yet handed over (read-only: tests and health look, only `record` adds). */
  get pending(): Readonly<MetricsBatch> {
    return this.#pending;
  }

  get dropped(): Dropped {
    return { ...this.#dropped };
  }

  /** Hands this isolate's counts to the region's metrics object (joining a flush under way). */
  flush(): Promise<void> {
    this.#flushing ??= this.#handOver().finally(() => (this.#flushing = undefined));
    return this.#flushing;
  }

  /** Before the admin API reads the totals: this isolate's counts, including those a flush under way missed. */
  async flushAll(): Promise<void> {
    // A flush under way belongs to another request: wait for it on this request's own timer, never
    // on its promise (workerd refuses a request I/O resumed in another request's context).
    while (this.#flushing) await new Promise((resolve) => setTimeout(resolve, 1));
    await this.flush();
  }

  async #handOver(): Promise<void> {
    this.#lastFlush = this.#clock.now();
    const batch = this.#pending;
    this.#pending = emptyBatch();
    if (isEmpty(batch)) return;
    try {
      await this.#store().add(batch);
    } catch (error) {
      mergeBatch(batch, this.#pending);
      this.#pending = batch;
      this.#keepWithinBounds();
      console.log(JSON.stringify({ event: "metrics_flush_failed", region: this.#region, error: String(error), dropped: this.#dropped }));
    }
  }

  /**
   * A batch kept while the metrics object is down is held to what the object itself would keep:
   * the last hour of series points and the most limited identities (trim), so it stops growing with
   * time and with every new identity denied. The rule and upstream counts have one entry each per
   * rule and upstream, bounded by the tables, and are kept whole.
   */
  #keepWithinBounds(): void {
    const pending = this.#pending;
    const points = () => Object.values(pending.series).reduce((n, bucket) => n + Object.keys(bucket).length, 0);
    const seriesBefore = points();
    const limitedBefore = Object.keys(pending.limited).length;
    trim(pending, this.#clock.now());
    this.#dropped.seriesPoints += seriesBefore - points();
    this.#dropped.limitedIdentities += limitedBefore - Object.keys(pending.limited).length;
  }
}
