// How the gateway decided the requests of a run, from its own Prometheus counters
// (GET /_tollgate/metrics, src/admin/metrics/prometheus.ts): answered on an admission lease, from
// the deny cache, or after a counter object call. The counters are totals since the gateway
// started, so a run's mix is the difference of a scrape before it and one after.
//
// A small parser of our own: the one npm package for the text format
// (parse-prometheus-text-format) is long unmaintained and ships no types, and the bench
// reads five counter families that the gateway prints one sample per line, without timestamps.
import { request } from "undici";
import { LOCAL_BINDINGS } from "../../tools/local-bindings.ts";
import type { RunningTarget } from "./serving.ts";
import { BENCH_ADMIN_TOKEN } from "./targets.ts";

/** Decisions summed over every rule (and outcome). */
export interface DecisionTotals {
  readonly decisions: number;
  /** Admissions decided on units the counter object leased: no call. */
  readonly lease: number;
  /** Denials answered from the isolate's deny cache: no call. */
  readonly denyCache: number;
  /**
   * Decisions that waited on a counter object call (the counter latency histogram's count; one
   * per decision however calls were coalesced), those that fell back locally when it failed
   * included.
   */
  readonly object: number;
  /** Counter calls that failed, timed out or were refused. */
  readonly failures: number;
}

const FAMILIES: Readonly<Record<string, keyof DecisionTotals>> = {
  tollgate_decisions_total: "decisions",
  tollgate_lease_answers_total: "lease",
  tollgate_deny_cache_answers_total: "denyCache",
  tollgate_counter_latency_ms_count: "object",
  tollgate_counter_failures_total: "failures",
};

export const NO_DECISIONS: DecisionTotals = { decisions: 0, lease: 0, denyCache: 0, object: 0, failures: 0 };

/**
 * Pure: the totals in the gateway's Prometheus text. A family without samples (no rule has
 * decided anything yet) adds nothing.
 *
 * @throws when the text is not the gateway's metrics, or a sample's value is not a number
 */
export function parseDecisionTotals(text: string): DecisionTotals {
  if (!/^# TYPE tollgate_decisions_total counter$/m.test(text)) throw new Error("not the gateway's metrics: no tollgate_decisions_total family");
  const totals: Record<keyof DecisionTotals, number> = { ...NO_DECISIONS };
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const name = /^[a-zA-Z_:][a-zA-Z0-9_:]*/.exec(line)?.[0] ?? "";
    const field = FAMILIES[name];
    if (field === undefined) continue;
    // The value follows the labels; a label value may hold spaces or braces, never after the last "}".
    const rest = line[name.length] === "{" ? line.slice(line.lastIndexOf("}") + 1) : line.slice(name.length);
    const value = Number(rest.trim().split(/\s+/)[0]);
    if (!Number.isFinite(value)) throw new Error(`not a number in the gateway's metrics: ${line}`);
    totals[field] += value;
  }
  return totals;
}

/** Pure: what was decided between two scrapes. */
export function diffTotals(after: DecisionTotals, before: DecisionTotals): DecisionTotals {
  return {
    decisions: after.decisions - before.decisions,
    lease: after.lease - before.lease,
    denyCache: after.denyCache - before.denyCache,
    object: after.object - before.object,
    failures: after.failures - before.failures,
  };
}

/**
 * The gateway's totals now. Reading the admin API flushes the isolate's pending metrics first
 * (src/gateway/metrics.ts), so every decision answered so far is in them; the admin API is
 * mounted before the rate limiter, so the scrape itself is never counted.
 */
export async function scrapeDecisionTotals(target: RunningTarget): Promise<DecisionTotals> {
  // On the admin host (ADMIN_HOSTS, docs/admin.md): undici's request sets Host, which fetch may not.
  const response = await request(new URL("/_tollgate/metrics", target.url), {
    headers: { host: LOCAL_BINDINGS.ADMIN_HOSTS, authorization: `Bearer ${BENCH_ADMIN_TOKEN}` },
  });
  const text = await response.body.text();
  if (response.statusCode !== 200) throw new Error(`GET /_tollgate/metrics answered ${response.statusCode}: ${text.slice(0, 200)}`);
  return parseDecisionTotals(text);
}
