import { describe, expect, it } from "vitest";
import {
  emptyBatch,
  LATENCY_BUCKETS_MS,
  mergeBatch,
  recordDecision,
  recordFailure,
  recordUpstream,
  SERIES_BUCKET_MS,
  trim,
} from "../../../src/core/metrics/aggregate.ts";
import { prometheusText } from "../../../src/admin/metrics/prometheus.ts";

describe("metrics", () => {
  it("add up across batches: counts, histograms, the fullest window and the most limited identities", () => {
    const a = emptyBatch();
    const b = emptyBatch();
    const limit = { count: 15, interval: 10 };
    recordDecision(
      a,
      { rule: 12, ruleName: "runs-query-key", outcome: "admitted", decidedBy: "object", counterMs: 3, limit, used: 4, counter: "us:12:x" },
      10_001,
    );
    recordDecision(b, { rule: 12, ruleName: "runs-query-key", outcome: "denied", decidedBy: "deny-cache", limit, used: 15, counter: "us:12:x" }, 10_002);
    recordDecision(
      b,
      {
        rule: 12,
        ruleName: "runs-query-key",
        outcome: "admitted",
        decidedBy: "local-fallback",
        failed: true,
        counterMs: 1000,
        limit,
        used: 2,
        counter: "us:12:y",
      },
      25_000,
    );
    // On a leased unit: counted as such, and no counter call to time.
    recordDecision(
      b,
      { rule: 12, ruleName: "runs-query-key", outcome: "admitted", decidedBy: "lease", counterMs: 0, limit, used: 5, counter: "us:12:z" },
      25_001,
    );
    recordFailure(b, 12, "runs-query-key");
    recordUpstream(b, { upstream: "hosted-api", status: 503, ms: 7 });
    mergeBatch(a, b);
    const r = a.rules[12]!;
    expect(r.outcomes).toEqual({ admitted: 3, denied: 1, shadow_denied: 0, blocked: 0, exempt: 0 });
    expect([r.denyCache, r.leases, r.failures, r.latency.count, r.latency.sum]).toEqual([1, 1, 2, 2, 1003]);
    expect(a.series[10_000]![12]).toEqual({ admitted: 1, denied: 1, shadowDenied: 0, fullest: 15, limit: 15, interval: 10 });
    expect(a.series[20_000]![12]!.fullest).toBe(5);
    expect(a.limited["us:12:x"]).toEqual({ counter: "us:12:x", rule: 12, denials: 1, lastAt: 10_002 });
    expect(a.upstreams["hosted-api"]!.statuses["5xx"]).toBe(1);
    trim(a, 10_000 + 3_600_000 + SERIES_BUCKET_MS);
    expect(Object.keys(a.series)).toEqual(["20000"]);
  });

  it("render as Prometheus text: cumulative buckets, escaped labels, one family header each", () => {
    const batch = emptyBatch();
    recordDecision(batch, { rule: 12, ruleName: 'we"ird\\name', outcome: "admitted", decidedBy: "object", counterMs: 2 }, 0);
    recordDecision(batch, { rule: 12, ruleName: 'we"ird\\name', outcome: "admitted", decidedBy: "object", counterMs: 30 }, 0);
    const text = prometheusText("us", batch);
    const labels = 'region="us",rule="12",rule_name="we\\"ird\\\\name"';
    expect(text).toContain(`tollgate_decisions_total{${labels},outcome="admitted"} 2\n`);
    expect(text).toContain(`tollgate_counter_latency_ms_bucket{${labels},le="1"} 0\n`);
    expect(text).toContain(`tollgate_counter_latency_ms_bucket{${labels},le="2"} 1\n`);
    expect(text).toContain(`tollgate_counter_latency_ms_bucket{${labels},le="50"} 2\n`);
    expect(text).toContain(`tollgate_counter_latency_ms_bucket{${labels},le="+Inf"} 2\n`);
    expect(text).toContain(`tollgate_counter_latency_ms_sum{${labels}} 32\n`);
    expect(text).toContain(`tollgate_lease_answers_total{${labels}} 0\n`);
    expect(text).toContain(`tollgate_fallback_admissions_total{${labels}} 0\n`);
    expect(text.match(/^# TYPE /gm)).toHaveLength(8);
    expect(LATENCY_BUCKETS_MS.length).toBeGreaterThan(5);
  });
});
