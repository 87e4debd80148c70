// Pure: what a scenario's timeline says about the counting. Each request is known only by when the
// client sent it (s) and received the answer (r); the counter decided somewhere in [s, r]. Every
// judgement here is sound in both directions, so a slow or busy machine (wide [s, r]) can hide a
// fault but never invent one:
// - an admission is over only if `count` other admissions were certainly decided before it and
//   certainly lie in its window;
// - a 429 is early only if fewer than `count` admissions could possibly lie in its window.
import { percentiles } from "../../tools/loadtest/analysis.ts";

/** One request as the client saw it (client clock, milliseconds). */
export interface Observation {
  readonly isolate: number;
  readonly sentAt: number;
  readonly receivedAt: number;
  readonly status: number;
  /** Retry-After in milliseconds of real time (the header's whole seconds), on a 429. */
  readonly retryAfterMs?: number;
  /** Decided by the isolate's local window (x-tollgate-counter: local-fallback). */
  readonly localFallback?: boolean;
  /** This request retries the 429 at this index, sent at its receipt + Retry-After... */
  readonly retryOf?: number;
  /** ...with nothing else sent by the scenario in between (only then is it judged). */
  readonly cleanRetry?: boolean;
}

export interface Limit {
  readonly count: number;
  readonly intervalMs: number;
}

/** A limit change made through the admin API. */
export interface LimitChange {
  /** When the change was sent: an isolate may apply it from then on... */
  readonly sentAt: number;
  /** ...and every isolate applies it by then (acknowledged + OVERRIDES_REFRESH_MS + one read). */
  readonly settledBy: number;
  readonly limit: Limit;
}

/** A stretch in which the counter object was made to fail: local decisions are declared there. */
export interface Outage {
  readonly from: number;
  readonly to: number;
}

export interface Timeline {
  readonly limit: Limit;
  readonly changes?: readonly LimitChange[];
  readonly outages?: readonly Outage[];
  readonly observations: readonly Observation[];
  readonly isolates: number;
}

export interface Figures {
  readonly requests: number;
  readonly admitted: number;
  /** Admissions certainly within one interval of the scenario's first request. */
  readonly admittedInFirstWindow: number;
  readonly denied: number;
  /** Neither admitted nor 429 (e.g. 5xx). */
  readonly other: number;
  /** 1-based position of the first 429, and its Retry-After (ms). */
  readonly first429At?: number;
  readonly first429RetryAfterMs?: number;
  /** The most admissions certainly in one window (a lower bound on the fullest window). */
  readonly fullestWindow: number;
  readonly overAdmissions: number;
  readonly early429s: number;
  readonly retriesJudged: number;
  readonly retriesHonoured: number;
  /** Admissions by an isolate's local window during a declared outage... */
  readonly localAdmitted: number;
  /** ...the most of them one isolate certainly made in one window (bound: count)... */
  readonly localFullestPerIsolate: number;
  /** ...and the most admissions of any kind certainly in one window (bound: isolates x count). */
  readonly outageFullestWindow: number;
  /** Client-observed latency of the 429s, p95 (ms); undefined without 429s. */
  readonly refusalP95Ms?: number;
}

/** Slack for the counter's millisecond clock against the client's sub-millisecond one. */
export const CLOCK_SLACK_MS = 2;

const isAdmitted = (o: Observation) => o.status >= 200 && o.status < 400;

/**
 * The limits that may be in force for a decision made in [s, r]: each change may apply from when
 * it was sent, and its predecessor until it has settled everywhere.
 */
export function limitsPossibleIn(timeline: Pick<Timeline, "limit" | "changes">, s: number, r: number): Limit[] {
  const changes = [...(timeline.changes ?? [])].sort((a, b) => a.sentAt - b.sentAt);
  const spans: { limit: Limit; from: number; to: number }[] = [];
  let from = -Infinity;
  let current = timeline.limit;
  for (const change of changes) {
    spans.push({ limit: current, from, to: change.settledBy });
    current = change.limit;
    from = change.sentAt;
  }
  spans.push({ limit: current, from, to: Infinity });
  return spans.filter((span) => span.from <= r && span.to >= s).map((span) => span.limit);
}

/** Admissions b certainly decided before a and certainly within a's window under `limit`. */
function certainlyBefore(a: Observation, admissions: readonly Observation[], limit: Limit): number {
  let n = 0;
  for (const b of admissions) {
    if (b === a) continue;
    if (b.receivedAt < a.sentAt && b.sentAt > a.receivedAt - limit.intervalMs + CLOCK_SLACK_MS) n++;
  }
  return n;
}

/** Admissions b that could lie in the window of a decision made in [s, r] under `limit`. */
function possiblyInWindow(s: number, r: number, admissions: readonly Observation[], limit: Limit): number {
  let n = 0;
  for (const b of admissions) {
    if (b.receivedAt > s - limit.intervalMs - CLOCK_SLACK_MS && b.sentAt < r + CLOCK_SLACK_MS) n++;
  }
  return n;
}

/** Over under every limit that may have been in force: over is never claimed on a guess. */
export function isOverAdmission(a: Observation, admissions: readonly Observation[], timeline: Pick<Timeline, "limit" | "changes">): boolean {
  return limitsPossibleIn(timeline, a.sentAt, a.receivedAt).every((limit) => certainlyBefore(a, admissions, limit) >= limit.count);
}

/** Early under every limit that may have been in force. */
export function isEarly429(d: Observation, admissions: readonly Observation[], timeline: Pick<Timeline, "limit" | "changes">): boolean {
  return limitsPossibleIn(timeline, d.sentAt, d.receivedAt).every((limit) => possiblyInWindow(d.sentAt, d.receivedAt, admissions, limit) < limit.count);
}

const inOutage = (o: Observation, outages: readonly Outage[]) => outages.some((w) => o.receivedAt >= w.from && o.sentAt <= w.to);

/** The most admissions certainly within one window: those certainly before each, plus itself. */
function fullest(admissions: readonly Observation[], timeline: Pick<Timeline, "limit" | "changes">): number {
  let most = 0;
  for (const a of admissions) {
    const limits = limitsPossibleIn(timeline, a.sentAt, a.receivedAt);
    const intervalMs = Math.min(...limits.map((l) => l.intervalMs));
    most = Math.max(most, 1 + certainlyBefore(a, admissions, { count: 0, intervalMs }));
  }
  return most;
}

export function analyze(timeline: Timeline): Figures {
  const { observations, limit } = timeline;
  const outages = timeline.outages ?? [];
  const admissions = observations.filter(isAdmitted);
  const denials = observations.filter((o) => o.status === 429);
  // Local decisions in a declared outage are judged against the outage's own bound, not the
  // window's: the object is counted without them until each isolate reports them.
  const local = admissions.filter((o) => o.localFallback && inOutage(o, outages));
  const counted = admissions.filter((o) => !local.includes(o));
  const overAdmissions = counted.filter((a) => isOverAdmission(a, counted, timeline)).length;
  // A 429 from a local window is that window's verdict: an outage denial, not an early one.
  const early429s = denials.filter((d) => !(d.localFallback && inOutage(d, outages)) && isEarly429(d, admissions, timeline)).length;

  const firstIndex = observations.findIndex((o) => o.status === 429);
  const first = observations[firstIndex];
  const start = Math.min(...observations.map((o) => o.sentAt));
  const retries = observations.filter((o) => o.retryOf !== undefined && o.cleanRetry && observations[o.retryOf]?.status === 429);
  const perIsolate = Array.from({ length: timeline.isolates }, (_, i) => local.filter((o) => o.isolate === i));
  const refusalP95 = percentiles(denials.map((d) => d.receivedAt - d.sentAt)).p95;
  return {
    ...(refusalP95 !== null && { refusalP95Ms: refusalP95 }),
    requests: observations.length,
    admitted: admissions.length,
    admittedInFirstWindow: admissions.filter((a) => a.receivedAt - start < limit.intervalMs - CLOCK_SLACK_MS).length,
    denied: denials.length,
    other: observations.length - admissions.length - denials.length,
    ...(first && { first429At: firstIndex + 1, first429RetryAfterMs: first.retryAfterMs }),
    fullestWindow: fullest(admissions, timeline),
    overAdmissions,
    early429s,
    retriesJudged: retries.length,
    retriesHonoured: retries.filter(isAdmitted).length,
    localAdmitted: local.length,
    localFullestPerIsolate: Math.max(0, ...perIsolate.map((mine) => (mine.length ? fullest(mine, timeline) : 0))),
    outageFullestWindow: local.length ? fullest(admissions, timeline) : 0,
  };
}
