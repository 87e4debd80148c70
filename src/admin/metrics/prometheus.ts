import { LATENCY_BUCKETS_MS, OUTCOMES, STATUS_CLASSES, type Histogram, type MetricsBatch } from "../../core/metrics/aggregate.ts";

/** Label values escaped as the text format requires (backslash, quote, newline). */
const escape = (value: string) => value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");
const labels = (pairs: Record<string, string>) =>
  `{${Object.entries(pairs)
    .map(([k, v]) => `${k}="${escape(v)}"`)
    .join(",")}}`;

function family(lines: string[], name: string, type: "counter" | "histogram", help: string): void {
  lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`);
}

function histogram(lines: string[], name: string, base: Record<string, string>, h: Histogram): void {
  let cumulative = 0;
  LATENCY_BUCKETS_MS.forEach((bound, i) => {
    cumulative += h.counts[i] ?? 0;
    lines.push(`${name}_bucket${labels({ ...base, le: String(bound) })} ${cumulative}`);
  });
  lines.push(`${name}_bucket${labels({ ...base, le: "+Inf" })} ${h.count}`);
  lines.push(`${name}_sum${labels(base)} ${h.sum}`, `${name}_count${labels(base)} ${h.count}`);
}

/**
 * The region's totals in the Prometheus text exposition format (version 0.0.4), for
 * `GET /_tollgate/metrics`. Labels carry rule ids and names, outcomes and upstreams: never an
 * identity (the most limited identities are on the dashboard, by digest).
 */
export function prometheusText(region: string, totals: MetricsBatch): string {
  const lines: string[] = [];
  const rules = Object.entries(totals.rules).sort(([a], [b]) => Number(a) - Number(b));
  const ruleLabels = (id: string, name: string) => ({ region, rule: id, rule_name: name });

  family(lines, "tollgate_decisions_total", "counter", "Requests decided by the rate limiter, by rule and outcome.");
  for (const [id, r] of rules)
    for (const outcome of OUTCOMES) lines.push(`tollgate_decisions_total${labels({ ...ruleLabels(id, r.name), outcome })} ${r.outcomes[outcome] ?? 0}`);
  family(lines, "tollgate_deny_cache_answers_total", "counter", "Denials answered from an isolate's deny cache, without a counter call.");
  for (const [id, r] of rules) lines.push(`tollgate_deny_cache_answers_total${labels(ruleLabels(id, r.name))} ${r.denyCache}`);
  family(lines, "tollgate_lease_answers_total", "counter", "Admissions an isolate decided on units leased by the counter object, without a counter call.");
  for (const [id, r] of rules) lines.push(`tollgate_lease_answers_total${labels(ruleLabels(id, r.name))} ${r.leases}`);
  family(lines, "tollgate_counter_failures_total", "counter", "Counter calls that failed, timed out or were refused.");
  for (const [id, r] of rules) lines.push(`tollgate_counter_failures_total${labels(ruleLabels(id, r.name))} ${r.failures}`);
  family(
    lines,
    "tollgate_fallback_admissions_total",
    "counter",
    "Admissions an isolate decided on its own local window while the counter object failed (each isolate at most count per window).",
  );
  for (const [id, r] of rules) lines.push(`tollgate_fallback_admissions_total${labels(ruleLabels(id, r.name))} ${r.fallbackAdmissions}`);
  family(lines, "tollgate_counter_latency_ms", "histogram", "Time of the counter call, in milliseconds.");
  for (const [id, r] of rules) histogram(lines, "tollgate_counter_latency_ms", ruleLabels(id, r.name), r.latency);

  const upstreams = Object.entries(totals.upstreams).sort(([a], [b]) => a.localeCompare(b));
  family(lines, "tollgate_upstream_responses_total", "counter", "Upstream answers, by upstream and status class.");
  for (const [name, u] of upstreams)
    for (const s of STATUS_CLASSES) lines.push(`tollgate_upstream_responses_total${labels({ region, upstream: name, class: s })} ${u.statuses[s] ?? 0}`);
  family(lines, "tollgate_upstream_latency_ms", "histogram", "Time to the upstream's response headers, in milliseconds.");
  for (const [name, u] of upstreams) histogram(lines, "tollgate_upstream_latency_ms", { region, upstream: name }, u.latency);
  return `${lines.join("\n")}\n`;
}
