/*
 * The gateway's metrics as counts that add up: each isolate records into a batch (src/gateway/
 * metrics.ts) and hands it to the region's metrics object, which adds it to the total
 * (src/durable-objects/metrics-store.ts). Pure: both sides and the Prometheus text share it.
 */
import type { DecidedBy } from "../limiter/index.ts";
import type { PublishedLimit } from "../rules/schema.ts";

/** Upper bounds (ms) of the latency histogram buckets; a last bucket takes the rest. */
export const LATENCY_BUCKETS_MS = [1, 2, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000] as const;

/** What the rate limiter made of a request. */
export const OUTCOMES = ["admitted", "denied", "shadow_denied", "blocked", "exempt"] as const;
export type Disposition = (typeof OUTCOMES)[number];

export const STATUS_CLASSES = ["1xx", "2xx", "3xx", "4xx", "5xx"] as const;
export type StatusClass = (typeof STATUS_CLASSES)[number];

/** The dashboard's time series: one point per rule per bucket, kept for an hour. */
export const SERIES_BUCKET_MS = 10_000;
export const SERIES_KEEP_MS = 3_600_000;
/** The most limited identities kept (by denials). */
export const LIMITED_KEEP = 100;

export interface Histogram {
  /** Per bucket of LATENCY_BUCKETS_MS, then one for everything slower. */
  readonly counts: number[];
  sum: number;
  count: number;
}

export interface RuleMetrics {
  name: string;
  readonly outcomes: Record<Disposition, number>;
  /** Answers from an isolate's deny cache (no counter call). */
  denyCache: number;
  /** Admissions an isolate decided on units its counter object leased it (no counter call). */
  leases: number;
  /** Counter calls that failed, timed out or were refused (decided locally, or 503 failing closed). */
  failures: number;
  /**
   * Admissions an isolate's local window made while the counter object failed. Outside the
   * object's own count: K isolates admit at most K x count per window between them (docs/counting.md).
   */
  fallbackAdmissions: number;
  /** How long the counter call took, deny-cache and lease answers excluded. */
  readonly latency: Histogram;
}

export interface UpstreamMetrics {
  readonly statuses: Record<StatusClass, number>;
  /** Time to the upstream's response headers. */
  readonly latency: Histogram;
}

/** One rule in one series bucket. */
export interface SeriesPoint {
  admitted: number;
  denied: number;
  shadowDenied: number;
  /** The fullest window any counter of the rule reported in the bucket (limit minus remaining). */
  fullest: number;
  /** The effective limit last seen in the bucket. */
  limit: number;
  interval: number;
}

export interface LimitedIdentity {
  /** `<region>:<rule>:<digest>`: hashed, as counters are named. */
  readonly counter: string;
  readonly rule: number;
  denials: number;
  lastAt: number;
}

export interface MetricsBatch {
  /** By rule id. */
  readonly rules: Record<string, RuleMetrics>;
  /** By upstream name. */
  readonly upstreams: Record<string, UpstreamMetrics>;
  /** By bucket start (epoch ms), then rule id. */
  readonly series: Record<string, Record<string, SeriesPoint>>;
  /** By counter name. */
  readonly limited: Record<string, LimitedIdentity>;
}

/** One decision, as the rate-limit middleware reports it. Digests only, never raw identities. */
export interface DecisionSample {
  readonly rule: number;
  readonly ruleName: string;
  readonly outcome: Disposition;
  readonly decidedBy?: DecidedBy;
  /** The counter failed (the request was decided locally, or refused failing closed). */
  readonly failed?: boolean;
  readonly counterMs?: number;
  readonly limit?: PublishedLimit;
  /** Admissions in the window after this decision (limit minus remaining). */
  readonly used?: number;
  readonly counter?: string;
}

export interface UpstreamSample {
  readonly upstream: string;
  readonly status: number;
  readonly ms: number;
}

export const emptyBatch = (): MetricsBatch => ({ rules: {}, upstreams: {}, series: {}, limited: {} });

export const isEmpty = (b: MetricsBatch): boolean =>
  Object.keys(b.rules).length === 0 && Object.keys(b.upstreams).length === 0 && Object.keys(b.limited).length === 0;

const emptyHistogram = (): Histogram => ({ counts: new Array<number>(LATENCY_BUCKETS_MS.length + 1).fill(0), sum: 0, count: 0 });
const zeros = <K extends string>(keys: readonly K[]) => Object.fromEntries(keys.map((k) => [k, 0])) as Record<K, number>;

function observe(h: Histogram, ms: number): void {
  const at = LATENCY_BUCKETS_MS.findIndex((bound) => ms <= bound);
  h.counts[at === -1 ? LATENCY_BUCKETS_MS.length : at]!++;
  h.sum += ms;
  h.count++;
}

/**
 * The upper bound (ms) of the bucket that holds the `q`-th fraction of the samples (0 < q <= 1):
 * "p99 <= 25 ms", as far as the buckets can tell. `null` when the histogram is empty, `Infinity`
 * when the sample falls past the last bound.
 */
export function quantileBound(h: Histogram, q: number): number | null {
  if (h.count === 0) return null;
  const rank = Math.ceil(q * h.count);
  let seen = 0;
  for (let i = 0; i < h.counts.length; i++) {
    seen += h.counts[i] ?? 0;
    if (seen >= rank) return i < LATENCY_BUCKETS_MS.length ? LATENCY_BUCKETS_MS[i]! : Number.POSITIVE_INFINITY;
  }
  return Number.POSITIVE_INFINITY;
}

function ruleOf(batch: MetricsBatch, id: number, name: string): RuleMetrics {
  return (batch.rules[id] ??= { name, outcomes: zeros(OUTCOMES), denyCache: 0, leases: 0, failures: 0, fallbackAdmissions: 0, latency: emptyHistogram() });
}

/** Adds one decision made at `now`. */
export function recordDecision(batch: MetricsBatch, d: DecisionSample, now: number): void {
  const rule = ruleOf(batch, d.rule, d.ruleName);
  rule.outcomes[d.outcome]++;
  if (d.decidedBy === "deny-cache") rule.denyCache++;
  if (d.decidedBy === "lease") rule.leases++;
  if (d.failed) rule.failures++;
  if (d.decidedBy === "local-fallback" && d.outcome === "admitted") rule.fallbackAdmissions++;
  if (d.counterMs !== undefined && d.decidedBy !== "deny-cache" && d.decidedBy !== "lease") observe(rule.latency, d.counterMs);
  if ((d.outcome === "denied" || d.outcome === "blocked") && d.counter) {
    const limited = (batch.limited[d.counter] ??= { counter: d.counter, rule: d.rule, denials: 0, lastAt: now });
    limited.denials++;
    limited.lastAt = Math.max(limited.lastAt, now);
  }
  if (!d.limit) return;
  const bucket = (batch.series[now - (now % SERIES_BUCKET_MS)] ??= {});
  const point = (bucket[d.rule] ??= { admitted: 0, denied: 0, shadowDenied: 0, fullest: 0, limit: d.limit.count, interval: d.limit.interval });
  if (d.outcome === "admitted") point.admitted++;
  if (d.outcome === "denied") point.denied++;
  if (d.outcome === "shadow_denied") point.shadowDenied++;
  point.fullest = Math.max(point.fullest, d.used ?? 0);
  point.limit = d.limit.count;
  point.interval = d.limit.interval;
}

/** A counter failure that decided nothing (the gateway failed closed and answered 503). */
export function recordFailure(batch: MetricsBatch, rule: number, ruleName: string): void {
  ruleOf(batch, rule, ruleName).failures++;
}

export function statusClass(status: number): StatusClass {
  return STATUS_CLASSES[Math.min(4, Math.max(0, Math.floor(status / 100) - 1))]!;
}

/** Adds one upstream answer. */
export function recordUpstream(batch: MetricsBatch, u: UpstreamSample): void {
  const upstream = (batch.upstreams[u.upstream] ??= { statuses: zeros(STATUS_CLASSES), latency: emptyHistogram() });
  upstream.statuses[statusClass(u.status)]++;
  observe(upstream.latency, u.ms);
}

function addHistogram(into: Histogram, from: Histogram): void {
  from.counts.forEach((n, i) => (into.counts[i] = (into.counts[i] ?? 0) + n));
  into.sum += from.sum;
  into.count += from.count;
}

/** Adds `from` into `into` (counts add; the fullest window and last-seen times take the larger). */
export function mergeBatch(into: MetricsBatch, from: MetricsBatch): void {
  for (const [id, r] of Object.entries(from.rules)) {
    const rule = ruleOf(into, Number(id), r.name);
    rule.name = r.name;
    for (const o of OUTCOMES) rule.outcomes[o] += r.outcomes[o] ?? 0;
    rule.denyCache += r.denyCache;
    // A batch from an isolate running an earlier version has no lease answers.
    rule.leases += r.leases ?? 0;
    rule.failures += r.failures;
    // Nor fallback admissions, counted apart since.
    rule.fallbackAdmissions += r.fallbackAdmissions ?? 0;
    addHistogram(rule.latency, r.latency);
  }
  for (const [name, u] of Object.entries(from.upstreams)) {
    const upstream = (into.upstreams[name] ??= { statuses: zeros(STATUS_CLASSES), latency: emptyHistogram() });
    for (const s of STATUS_CLASSES) upstream.statuses[s] += u.statuses[s] ?? 0;
    addHistogram(upstream.latency, u.latency);
  }
  for (const [at, points] of Object.entries(from.series)) {
    const bucket = (into.series[at] ??= {});
    for (const [id, p] of Object.entries(points)) {
      const point = (bucket[id] ??= { admitted: 0, denied: 0, shadowDenied: 0, fullest: 0, limit: p.limit, interval: p.interval });
      point.admitted += p.admitted;
      point.denied += p.denied;
      point.shadowDenied += p.shadowDenied;
      point.fullest = Math.max(point.fullest, p.fullest);
      point.limit = p.limit;
      point.interval = p.interval;
    }
  }
  for (const [counter, l] of Object.entries(from.limited)) {
    const limited = (into.limited[counter] ??= { counter, rule: l.rule, denials: 0, lastAt: l.lastAt });
    limited.denials += l.denials;
    limited.lastAt = Math.max(limited.lastAt, l.lastAt);
  }
}

/** Drops series buckets older than an hour before `now`, and all but the most limited identities. */
export function trim(batch: MetricsBatch, now: number): void {
  for (const at of Object.keys(batch.series)) if (Number(at) < now - SERIES_KEEP_MS) delete batch.series[at];
  const ranked = Object.values(batch.limited).sort((a, b) => b.denials - a.denials || b.lastAt - a.lastAt);
  for (const dropped of ranked.slice(LIMITED_KEEP)) delete batch.limited[dropped.counter];
}
