import { SERIES_BUCKET_MS, SERIES_KEEP_MS, type MetricsBatch } from "../metrics/aggregate.ts";
import type { EffectiveTable } from "../../overrides/effective-table.ts";
import type { AuditEntry, Override } from "../../overrides/types.ts";

/** The shortest stretch of time a chart shows. */
const MIN_SHOWN_MS = 300_000;

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
}) {
  const { now, totals } = input;
  // Every bucket from the first with traffic (at least the last five minutes, at most the hour
  // kept) to now, empty ones included, so the time axis is even.
  const last = now - (now % SERIES_BUCKET_MS);
  const oldest = Math.min(...Object.keys(totals.series).map(Number).filter((t) => t > last - SERIES_KEEP_MS), last - MIN_SHOWN_MS);
  const at = Array.from({ length: (last - oldest) / SERIES_BUCKET_MS + 1 }, (_, i) => oldest + i * SERIES_BUCKET_MS);
  const rows = input.tables.flatMap((t) => t.rows.map((row) => ({ ...row, table: t.table })));
  const series: Record<string, { admitted: number[]; denied: number[]; shadowDenied: number[]; fullest: (number | null)[]; limit: (number | null)[] }> = {};
  for (const row of rows) {
    const points = at.map((t) => totals.series[t]?.[row.id]);
    if (points.every((p) => p === undefined)) continue;
    series[row.id] = {
      admitted: points.map((p) => p?.admitted ?? 0),
      denied: points.map((p) => p?.denied ?? 0),
      shadowDenied: points.map((p) => p?.shadowDenied ?? 0),
      fullest: points.map((p) => p?.fullest ?? null),
      limit: points.map((p) => p?.limit ?? null),
    };
  }
  return {
    region: input.region,
    now,
    version: input.version,
    bucketMs: SERIES_BUCKET_MS,
    at,
    rules: rows.map((row) => {
      const t = totals.rules[row.id];
      return {
        id: row.id,
        name: row.name,
        table: row.table,
        identity: row.identity,
        mode: row.mode,
        limit: row.limit,
        published: row.published,
        override: row.override ?? null,
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
    upstreams: totals.upstreams,
    limited: Object.values(totals.limited)
      .sort((a, b) => b.denials - a.denials || b.lastAt - a.lastAt)
      .slice(0, LIMITED_SHOWN),
    overrides: input.overrides,
    audit: input.audit,
  };
}

export type DashboardData = ReturnType<typeof dashboardData>;
