import { quantileBound, SERIES_BUCKET_MS, SERIES_KEEP_MS, type Histogram, type MetricsBatch } from "../../core/metrics/aggregate.ts";
import type { EffectiveTable } from "../../core/overrides/effective-table.ts";
import type { AuditEntry, Override } from "../../core/overrides/types.ts";
import { appliesOn } from "../../core/overrides/scope.ts";
import type { IdentityKind, Region } from "../../core/rules/schema.ts";

/** The spans the charts can show: the last five minutes, or the whole hour kept. */
export const SPANS_MS = { "5m": 300_000, "1h": SERIES_KEEP_MS } as const;
export type Span = keyof typeof SPANS_MS;

/**
 * A histogram as the page states it: bucket upper bounds, not interpolated guesses ("p99 <= 25
 * ms"). A quantile past the last bound is `null` (the page says "> 5000"); `count` 0: no sample.
 */
export function latencySummary(h: Histogram) {
  const bound = (q: number) => {
    const b = quantileBound(h, q);
    return b === null || b === Number.POSITIVE_INFINITY ? null : b;
  };
  return { count: h.count, mean: h.count ? h.sum / h.count : null, p50: bound(0.5), p99: bound(0.99) };
}

/** Most limited identities shown. */
export const LIMITED_SHOWN = 20;

/** Everything the dashboard draws, in one answer (`GET /_tollgate/dashboard/data`). Digests only. */
export function dashboardData(input: {
  region: string;
  now: number;
  version: number;
  tables: readonly EffectiveTable[];
  totals: MetricsBatch;
  overrides: readonly Override[];
  audit: readonly AuditEntry[];
  /** Absent: the last five minutes when all the traffic kept is that recent, else the hour. */
  span?: Span;
}) {
  const { now, totals } = input;
  // Every bucket of the span, empty ones included, so the time axis is even and as long as its
  // label says; without a chosen span, the shortest that holds all the traffic kept.
  const last = now - (now % SERIES_BUCKET_MS);
  const seen = Object.keys(totals.series)
    .map(Number)
    .filter((t) => t > last - SERIES_KEEP_MS);
  const span: Span = input.span ?? (seen.some((t) => t <= last - SPANS_MS["5m"]) ? "1h" : "5m");
  const buckets = SPANS_MS[span] / SERIES_BUCKET_MS;
  const at = Array.from({ length: buckets }, (_, i) => last - (buckets - 1 - i) * SERIES_BUCKET_MS);
  const rows = input.tables.flatMap((t) => t.rows.map((row) => ({ ...row, table: t.table })));
  const series: Record<string, { admitted: number[]; denied: number[]; shadowDenied: number[]; fullest: (number | null)[]; limit: number[] }> = {};
  for (const row of rows) {
    const points = at.map((t) => totals.series[t]?.[row.id]);
    if (points.every((p) => p === undefined)) continue;
    series[row.id] = {
      admitted: points.map((p) => p?.admitted ?? 0),
      denied: points.map((p) => p?.denied ?? 0),
      shadowDenied: points.map((p) => p?.shadowDenied ?? 0),
      // No point where the bucket is empty: the page draws no line across a bucket without traffic.
      fullest: points.map((p) => (p && p.admitted + p.denied + p.shadowDenied > 0 ? p.fullest : null)),
      // The rule's own limit (published, or a rule override's) across the whole axis. The series
      // records the limit each decision met, which is an identity's when it has an override: that
      // is listed apart (`identityOverrides`), not drawn as if the rule's limit moved.
      limit: at.map(() => row.limit.count),
    };
  }
  return {
    region: input.region,
    now,
    version: input.version,
    bucketMs: SERIES_BUCKET_MS,
    at,
    span,
    spanMs: SPANS_MS[span],
    rules: rows.map((row) => {
      const t = totals.rules[row.id];
      const outcomes = t ? Object.values(t.outcomes).reduce((a, b) => a + b, 0) : 0;
      return {
        id: row.id,
        name: row.name,
        table: row.table,
        identity: row.identity,
        mode: row.mode,
        limit: row.limit,
        published: row.published,
        override: row.override ?? null,
        // Identity overrides that reach this rule (on it, or on every rule, counting what it
        // names: scope.ts): shown beside its chart, apart from the rule's limit line.
        identityOverrides: input.overrides.flatMap((o) =>
          o.kind === "identity" && (o.rule === undefined || o.rule === row.id) && appliesOn(o, row.identity as IdentityKind)
            ? [{ id: o.id, subject: o.subject, action: o.action, everyRule: o.rule === undefined, limit: o.limits?.[input.region as Region] ?? null }]
            : [],
        ),
        /** Denied over every request the rule decided (admitted, denied, shadow denied, blocked, exempt); null before any. */
        denialRate: outcomes ? (t?.outcomes.denied ?? 0) / outcomes : null,
        counterLatency: t ? latencySummary(t.latency) : null,
        totals: {
          admitted: t?.outcomes.admitted ?? 0,
          denied: t?.outcomes.denied ?? 0,
          shadowDenied: t?.outcomes.shadow_denied ?? 0,
          blocked: t?.outcomes.blocked ?? 0,
          exempt: t?.outcomes.exempt ?? 0,
          denyCache: t?.denyCache ?? 0,
          failures: t?.failures ?? 0,
        },
      };
    }),
    series,
    upstreams: Object.fromEntries(Object.entries(totals.upstreams).map(([name, u]) => [name, { statuses: u.statuses, latency: latencySummary(u.latency) }])),
    limited: Object.values(totals.limited)
      .sort((a, b) => b.denials - a.denials || b.lastAt - a.lastAt)
      .slice(0, LIMITED_SHOWN),
    overrides: input.overrides,
    audit: input.audit,
  };
}

export type DashboardData = ReturnType<typeof dashboardData>;
