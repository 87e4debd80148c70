import { statusClass, type DecisionSample, type UpstreamSample } from "../core/metrics/aggregate.ts";
import type { Env } from "../env.ts";
import type { Background } from "./execution-context.ts";
import type { MetricsBuffer } from "./metrics-buffer.ts";
import { telemetryCounter, type GatewaySettings } from "./settings.ts";

/** What the request path's metrics read of the checked settings (src/gateway/settings.ts). */
export type RequestMetricsSettings = Pick<GatewaySettings, "region" | "identitiesInTelemetry" | "metricsFlushMs">;

/**
 * What the request path counts, as its region runtime holds it (src/gateway/region-runtime.ts):
 * each event added to the isolate's buffer, handed to the region's metrics object at most every
 * METRICS_FLUSH_MS in the request's background, and written to Analytics Engine when bound.
 *
 * @example
 * runtime.metrics.upstream({ upstream: "hosted-api", status: 200, ms: 12 }, backgroundOf(c));
 */
export class RequestMetrics {
  readonly #buffer: MetricsBuffer;
  readonly #analytics: () => Env["ANALYTICS"];
  readonly #settings: RequestMetricsSettings;

  /** @param analytics the Analytics Engine dataset, read at each event (unbound locally) */
  constructor(buffer: MetricsBuffer, analytics: () => Env["ANALYTICS"], settings: RequestMetricsSettings) {
    this.#buffer = buffer;
    this.#analytics = analytics;
    this.#settings = settings;
  }

  /** Counts one rate-limit decision (and writes it to Analytics Engine when bound). */
  decision(sample: DecisionSample, background: Background | undefined): void {
    this.#buffer.record({ decision: sample });
    this.#analytics()?.writeDataPoint({
      indexes: [String(sample.rule)],
      blobs: [
        "decision",
        this.#settings.region,
        String(sample.rule),
        sample.ruleName,
        sample.outcome,
        sample.decidedBy ?? "",
        (sample.counter && telemetryCounter(this.#settings, sample.counter)) ?? "",
      ],
      doubles: [1, sample.counterMs ?? 0, sample.used ?? 0, sample.limit?.count ?? 0, sample.failed ? 1 : 0],
    });
    this.#flushIfDue(background);
  }

  /** Counts a counter failure that decided nothing (failing closed: 503). */
  failure(rule: { readonly id: number; readonly name: string }, background: Background | undefined): void {
    this.#buffer.record({ failure: rule });
    this.#flushIfDue(background);
  }

  /** Counts one forwarded request: its upstream, status class and time to response headers. */
  upstream(sample: UpstreamSample, background: Background | undefined): void {
    this.#buffer.record({ upstream: sample });
    this.#analytics()?.writeDataPoint({
      indexes: [sample.upstream],
      blobs: ["upstream", this.#settings.region, sample.upstream, statusClass(sample.status)],
      doubles: [1, sample.ms, sample.status],
    });
    this.#flushIfDue(background);
  }

  #flushIfDue(background: Background | undefined): void {
    if (!this.#buffer.flushDue(this.#settings.metricsFlushMs)) return;
    // No execution context (a bare app.fetch): the admin API's read flushes instead.
    background?.(this.#buffer.flush());
  }
}
