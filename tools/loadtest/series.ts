// Pure: what the report's charts plot. The main panel shows, for every window, the admissions the
// tool can prove were decided inside it: the very quantity the verdict's window check maximizes
// (analysis.ts, maxProvenInWindow), so a chart can never show more than the verdict saw. Where an
// admission took longer than a window to answer, no window can hold it; those windows are marked.
// Denials go on their own panel and scale: they are reported, not judged.
//
// The x axis is the window's end, in seconds since the rule started: the point at x is the window
// [x - W, x). Each of `buckets` steps holds the largest value any window ending in it reached
// (computed exactly, not sampled), so the highest step is the verdict's figure.
import { clientOf, isAdmitted, isDenied, lowerBound, round, toleranceMs, upperBound, type Answer } from "./answer.ts";
import { PHASES, type Phase } from "./traffic.ts";

export interface CounterLine {
  /** The counter (identity) on the gateway. */
  readonly counter: string;
  /** The clients that counted on it: one, or all three when the identity could not vary. */
  readonly clients: readonly Phase[];
  /** Per step: the most admissions proven inside one window ending there. */
  readonly proven: readonly number[];
}

export interface ChartSeries {
  /** Step edges, seconds since the rule started; step k runs from t[k] to t[k+1]. */
  readonly t: readonly number[];
  /** The window, ms (real time, as the gateway applied it). */
  readonly windowMs: number;
  readonly counters: readonly CounterLine[];
  /** Per step: the RateLimit check (admissions proven in the gateway's window + the r it offered) at admissions sent then; null where none was. */
  readonly header: readonly (number | null)[];
  /** Per step: admissions that may lie in a window ending there but that no window can hold, having taken a window or more to answer. */
  readonly hidden: readonly number[];
  /** The last answer's receipt, seconds since the rule started (0 without answers). */
  readonly lastReceiptS: number;
  /** Admissions that no window can hold, and the slowest answer among them (ms). */
  readonly hiddenTotal: number;
  readonly hiddenMaxLatencyMs: number | null;
  /** Per client: the most denials received in one trailing window (by receipt), per step. */
  readonly denied: readonly { readonly client: Phase; readonly values: readonly number[] }[];
}

export interface HeaderPoint {
  readonly sendMs: number;
  readonly exposure: number;
}

interface Span {
  readonly s: number;
  readonly r: number;
}

/** Steady, burst, retry: the order the clients are described in everywhere. */
const inClientOrder = (clients: ReadonlySet<Phase>): Phase[] => PHASES.filter((p) => clients.has(p));

/** Admissions proven in the window [t, t + span): f(t) = #{s >= t, r < t + span}, for placeable spans. */
function provenCounter(placeable: readonly Span[], span: number): (t: number) => number {
  const sends = placeable.map((a) => a.s).sort((x, y) => x - y);
  const receipts = placeable.map((a) => a.r).sort((x, y) => x - y);
  // Every placeable span sent before t was answered before t + span, so the two counts subtract.
  return (t) => lowerBound(receipts, t + span) - lowerBound(sends, t);
}

/**
 * The most admissions proven in one window, for windows ending in each step. f is piecewise
 * constant and left-continuous, changing just after a send (one leaves) or just after a receipt
 * minus the span (one enters); its largest value over a step is therefore at the step's ends or at
 * one of those moments inside it.
 */
function provenSteps(admitted: readonly Span[], edgesMs: readonly number[], windowMs: number): number[] {
  const span = windowMs - toleranceMs(windowMs);
  const placeable = admitted.filter((a) => a.r - a.s < span);
  const f = provenCounter(placeable, span);
  const events = [...placeable.map((a) => a.s), ...placeable.map((a) => a.r - span)].sort((x, y) => x - y);
  const out: number[] = [];
  let e = 0;
  for (let k = 0; k + 1 < edgesMs.length; k++) {
    const lo = edgesMs[k]! - windowMs;
    const hi = edgesMs[k + 1]! - windowMs;
    let best = Math.max(f(lo), f(hi));
    while (e < events.length && events[e]! < lo) e++;
    for (let j = e; j < events.length && events[j]! < hi; j++) best = Math.max(best, f(events[j]!));
    out.push(best);
  }
  return out;
}

/** The most answers received in one trailing window (x - W, x], for x in each step. */
function trailingSteps(receipts: readonly number[], edgesMs: readonly number[], windowMs: number): number[] {
  const sorted = [...receipts].sort((x, y) => x - y);
  const g = (x: number) => upperBound(sorted, x) - upperBound(sorted, x - windowMs);
  const out: number[] = [];
  let e = 0;
  for (let k = 0; k + 1 < edgesMs.length; k++) {
    // g rises at a receipt and falls a window later: its largest value is at the step's start or a receipt in it.
    let best = g(edgesMs[k]!);
    while (e < sorted.length && sorted[e]! < edgesMs[k]!) e++;
    for (let j = e; j < sorted.length && sorted[j]! < edgesMs[k + 1]!; j++) best = Math.max(best, g(sorted[j]!));
    out.push(best);
  }
  return out;
}

/**
 * The charts' series for one rule.
 * @param headerPoints the RateLimit check at each admitted answer that carried `r` (analysis.ts, headerExposures)
 */
export function chartSeries(
  answers: readonly Answer[],
  headerPoints: readonly HeaderPoint[],
  startMs: number,
  durationMs: number,
  windowMs: number,
  buckets = 300,
): ChartSeries {
  // Wide enough for every window the verdict looked at: each send's window ends a window later.
  let lastMs = durationMs;
  for (const a of answers) lastMs = Math.max(lastMs, a.recvMs - startMs, a.sendMs - startMs + windowMs);
  const stepMs = lastMs / buckets;
  const edgesMs = Array.from({ length: buckets + 1 }, (_, k) => startMs + k * stepMs);

  const byCounter = new Map<string, Answer[]>();
  for (const a of answers) {
    const list = byCounter.get(a.identity);
    if (list) list.push(a);
    else byCounter.set(a.identity, [a]);
  }
  const counters: CounterLine[] = [...byCounter]
    .map(([counter, list]) => ({
      counter,
      clients: inClientOrder(new Set(list.map((a) => clientOf(a.kind)))),
      proven: provenSteps(
        list.filter(isAdmitted).map((a) => ({ s: a.sendMs, r: a.recvMs })),
        edgesMs,
        windowMs,
      ),
    }))
    .sort((a, b) => PHASES.indexOf(a.clients[0]!) - PHASES.indexOf(b.clients[0]!));

  const header: (number | null)[] = Array.from({ length: buckets }, () => null);
  for (const p of headerPoints) {
    const k = Math.min(buckets - 1, Math.max(0, Math.floor((p.sendMs - startMs) / stepMs)));
    header[k] = Math.max(header[k] ?? 0, p.exposure);
  }

  // An admission answered a window or more after it was sent fits in no window: it could lie in
  // any window ending between its send and its receipt plus a window.
  const span = windowMs - toleranceMs(windowMs);
  const slow = answers.filter((a) => isAdmitted(a) && a.recvMs - a.sendMs >= span);
  const slowSends = slow.map((a) => a.sendMs).sort((x, y) => x - y);
  const slowEnds = slow.map((a) => a.recvMs + windowMs).sort((x, y) => x - y);
  const hidden = edgesMs.slice(0, -1).map((lo, k) => lowerBound(slowSends, edgesMs[k + 1]!) - lowerBound(slowEnds, lo));

  const clients = inClientOrder(new Set(answers.filter(isDenied).map((a) => clientOf(a.kind))));
  const denied = clients.map((client) => ({
    client,
    values: trailingSteps(
      answers.filter((a) => isDenied(a) && clientOf(a.kind) === client).map((a) => a.recvMs),
      edgesMs,
      windowMs,
    ),
  }));

  return {
    t: edgesMs.map((x) => round((x - startMs) / 1000, 4)),
    windowMs,
    lastReceiptS: round(answers.reduce((m, a) => Math.max(m, a.recvMs - startMs), 0) / 1000, 3),
    counters,
    header,
    hidden,
    hiddenTotal: slow.length,
    hiddenMaxLatencyMs: slow.length ? round(slow.reduce((m, a) => Math.max(m, a.recvMs - a.sendMs), 0)) : null,
    denied,
  };
}
