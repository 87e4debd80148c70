// Pure: from the gateway's answers to a verdict per rule. Times are the tool's own clock, in ms.
//
// The gateway decides a request at some moment between the tool sending it and the answer
// arriving: decision in [sendMs, recvMs]. Nothing here assumes more than that, so a correct
// sliding-window gateway is never flagged, however slow or loaded the machine is; latency only
// makes the checks less sensitive (each answer's decision time is less precisely known).
//
// 1. Timing. A set of admitted answers whose earliest send and latest receipt lie less than one
//    window apart were all decided inside one window; more than `count` of them is a violation.
// 2. The RateLimit header. An admitted answer with `r` says "the window ending now holds
//    count - r admissions". The tool knows admissions that were certainly in that window (sent
//    after the window's earliest possible start, answered before this request was sent). Those
//    plus the `r` units the gateway still offers must not exceed `count`: otherwise the gateway has
//    forgotten admissions still in its window (a fixed window does at every boundary) and would
//    admit more than `count` in one window to a client that spends what it is told is left.
//
// Both checks give the gateway a tolerance: its clock ticks in whole milliseconds, rounds the
// scaled interval to one, and need not run at exactly our clock's rate.
//
// The per-window series the charts plot (series.ts) and the words the verdict is given in
// (outcome.ts, verdict.ts) come from the same functions.
import { isAdmitted, isDenied, lowerBound, round, toleranceMs, upperBound, type Answer } from "./answer.ts";
import { judgeRetry, type RetryJudgement } from "./retry.ts";
import { chartSeries, type ChartSeries, type HeaderPoint } from "./series.ts";
import { judgeHeader, judgeRule, judgeWindow, type HeaderFinding, type RuleJudgement, type WindowFinding } from "./verdict.ts";

/** Counts, among the values inserted so far, those below a bound (a Fenwick tree over ranks). */
class RankCounter {
  readonly #tree: Int32Array;
  readonly #sorted: Float64Array;
  #size = 0;
  /** @param values every value that may be inserted */
  constructor(values: ArrayLike<number>) {
    this.#sorted = Float64Array.from(values).sort();
    this.#tree = new Int32Array(values.length + 1);
  }
  insert(x: number): void {
    // Equal values share a slot; the tree holds a count per slot.
    for (let i = lowerBound(this.#sorted, x) + 1; i < this.#tree.length; i += i & -i) this.#tree[i]!++;
    this.#size++;
  }
  /** Inserted values < x. */
  countBelow(x: number): number {
    return this.#prefix(lowerBound(this.#sorted, x));
  }
  /** Inserted values <= x. */
  countAtMost(x: number): number {
    return this.#prefix(upperBound(this.#sorted, x));
  }
  #prefix(slots: number): number {
    let sum = 0;
    for (let i = slots; i > 0; i -= i & -i) sum += this.#tree[i]!;
    return sum;
  }
  get size(): number {
    return this.#size;
  }
}

interface Span {
  readonly s: number;
  readonly r: number;
}

/**
 * The largest set of admitted answers that certainly lie within one window: for each answer's
 * send time `a`, those sent at or after `a` and answered before `a + window - tolerance`.
 */
export function maxProvenInWindow(admitted: readonly Span[], windowMs: number, tolMs = toleranceMs(windowMs)): WindowFinding {
  if (admitted.length === 0) return { admitted: 0, atMs: 0 };
  const span = windowMs - tolMs;
  const anchors = admitted.map((a) => a.s).sort((x, y) => x - y);
  const byReceipt = [...admitted].sort((x, y) => x.r - y.r);
  const counter = new RankCounter(admitted.map((a) => a.s));
  let next = 0;
  let best: WindowFinding = { admitted: 0, atMs: 0 };
  for (const a of anchors) {
    while (next < byReceipt.length && byReceipt[next]!.r < a + span) counter.insert(byReceipt[next++]!.s);
    const inside = counter.size - counter.countBelow(a);
    if (inside > best.admitted) best = { admitted: inside, atMs: a };
  }
  return best;
}

/**
 * For each admitted answer j with a RateLimit `r`: admissions i certainly in the window that ends
 * at j's decision (sent after j's answer minus a window, answered before j was sent), plus j, plus
 * the `r` units still offered. A correct gateway counts at least those admissions, so this never
 * exceeds `count` unless its accounting lost some. One finding per such answer, in send order.
 */
export function headerExposures(
  admitted: readonly (Span & { readonly remaining?: number })[],
  windowMs: number,
  tolMs = toleranceMs(windowMs),
): HeaderFinding[] {
  const queries = admitted.filter((a) => a.remaining !== undefined).sort((x, y) => x.s - y.s);
  const byReceipt = [...admitted].sort((x, y) => x.r - y.r);
  const counter = new RankCounter(admitted.map((a) => a.s));
  let next = 0;
  return queries.map((j) => {
    while (next < byReceipt.length && byReceipt[next]!.r < j.s) counter.insert(byReceipt[next++]!.s);
    const earliest = j.r - windowMs + tolMs;
    const proven = 1 + counter.size - counter.countAtMost(earliest);
    return { exposure: proven + j.remaining!, atMs: j.s, remaining: j.remaining!, proven };
  });
}

/** The largest of `headerExposures` (the first where several tie). */
export function maxHeaderExposure(
  admitted: readonly (Span & { readonly remaining?: number })[],
  windowMs: number,
  tolMs = toleranceMs(windowMs),
): HeaderFinding {
  let best: HeaderFinding = { exposure: 0, atMs: 0, remaining: 0, proven: 0 };
  for (const h of headerExposures(admitted, windowMs, tolMs)) if (h.exposure > best.exposure) best = h;
  return best;
}

export interface UnderAdmission {
  /** Most units provably free in the gateway's window when it denied a request. */
  readonly maxFreeAtDenial: number;
  /** Denials made while at least one unit was provably free. */
  readonly earlyDenials: number;
}

/**
 * For each denial: admissions that could possibly lie in its window (answered after its send
 * minus a window, sent before its answer). Fewer than `count` means the gateway refused a request
 * with room left.
 */
export function underAdmission(
  admitted: readonly Span[],
  denied: readonly Span[],
  count: number,
  windowMs: number,
  tolMs = toleranceMs(windowMs),
): UnderAdmission {
  const sends = admitted.map((a) => a.s).sort((x, y) => x - y);
  const receipts = admitted.map((a) => a.r).sort((x, y) => x - y);
  let maxFreeAtDenial = 0;
  let earlyDenials = 0;
  for (const d of denied) {
    // r_i <= s_d - W - tol implies s_i < r_d, so the two counts subtract cleanly.
    const possible = lowerBound(sends, d.r) - upperBound(receipts, d.s - windowMs - tolMs);
    const free = count - possible;
    if (free > 0) {
      earlyDenials++;
      if (free > maxFreeAtDenial) maxFreeAtDenial = free;
    }
  }
  return { maxFreeAtDenial, earlyDenials };
}

export interface Percentiles {
  readonly count: number;
  readonly p50: number | null;
  readonly p95: number | null;
  readonly p99: number | null;
}

/** Nearest-rank percentiles, in ms. */
export function percentiles(values: readonly number[]): Percentiles {
  if (values.length === 0) return { count: 0, p50: null, p95: null, p99: null };
  const sorted = [...values].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
  return { count: sorted.length, p50: round(at(50)), p95: round(at(95)), p99: round(at(99)) };
}

export interface RuleFigures {
  readonly sent: number;
  readonly admitted: number;
  readonly denied: number;
  readonly errors: number;
  /** Up to five distinct error descriptions with their counts. */
  readonly errorKinds: readonly { readonly error: string; readonly count: number }[];
  readonly admittedPerS: number;
  readonly deniedPerS: number;
  /** What the steady client sent per second, against what --load asked for. */
  readonly offeredRate: number;
  readonly intendedRate: number;
  /** True when the gateway refused at least one request: the limit was actually reached. */
  readonly limitReached: boolean;
  readonly maxInWindow: WindowFinding;
  readonly header: HeaderFinding;
  readonly underAdmission: UnderAdmission;
  /** Steady client after its first window: admissions per window as a share of count. */
  readonly steadyUtilization: number | null;
  readonly retryAfter: { readonly min: number | null; readonly max: number | null; readonly outOfRange: number };
  readonly latency: { readonly admitted: Percentiles; readonly denied: Percentiles };
}

export interface AnalysisInput {
  readonly count: number;
  /** The published interval, seconds (the judgement speaks of the rule as published). */
  readonly intervalS: number;
  /** The interval as the gateway applied it, ms. */
  readonly windowMs: number;
  readonly startMs: number;
  readonly durationMs: number;
  readonly steady: { readonly offsetMs: number; readonly durationMs: number };
  readonly intendedRate: number;
  readonly retrySkipped?: string;
}

export interface RuleAnalysis {
  readonly figures: RuleFigures;
  readonly judgement: RuleJudgement;
  readonly series: ChartSeries;
}

/** All figures, the judgement and the charts' series for one rule. */
export function analyzeRule(input: AnalysisInput, answers: readonly Answer[]): RuleAnalysis {
  const { count, windowMs } = input;
  const byIdentity = new Map<string, Answer[]>();
  for (const a of answers) {
    const list = byIdentity.get(a.identity);
    if (list) list.push(a);
    else byIdentity.set(a.identity, [a]);
  }

  // The checks run per counter: only answers counted together can exceed a limit together.
  let maxInWindow: WindowFinding = { admitted: 0, atMs: 0 };
  let header: HeaderFinding = { exposure: 0, atMs: 0, remaining: 0, proven: 0 };
  const headerPoints: HeaderPoint[] = [];
  let maxFreeAtDenial = 0;
  let earlyDenials = 0;
  for (const list of byIdentity.values()) {
    const adm = list.filter(isAdmitted).map((a) => ({ s: a.sendMs, r: a.recvMs, remaining: a.remaining }));
    const den = list.filter(isDenied).map((a) => ({ s: a.sendMs, r: a.recvMs }));
    const w = maxProvenInWindow(adm, windowMs);
    if (w.admitted > maxInWindow.admitted) maxInWindow = w;
    for (const h of headerExposures(adm, windowMs)) {
      headerPoints.push({ sendMs: h.atMs, exposure: h.exposure });
      if (h.exposure > header.exposure) header = h;
    }
    const u = underAdmission(adm, den, count, windowMs);
    maxFreeAtDenial = Math.max(maxFreeAtDenial, u.maxFreeAtDenial);
    earlyDenials += u.earlyDenials;
  }

  const admitted = answers.filter(isAdmitted);
  const denied = answers.filter(isDenied);
  const errored = answers.filter((a) => a.error !== undefined);
  const kinds = new Map<string, number>();
  for (const a of errored) kinds.set(a.error!, (kinds.get(a.error!) ?? 0) + 1);
  const errorKinds = [...kinds]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 5)
    .map(([error, n]) => ({ error, count: n }));

  const seconds = input.durationMs / 1000;
  const steady = answers.filter((a) => a.kind === "steady");
  const steadyStart = input.startMs + input.steady.offsetMs;
  const afterFirst = steady.filter((a) => a.sendMs >= steadyStart + windowMs);
  const steadyWindows = (input.steady.durationMs - windowMs) / windowMs;
  const steadyUtilization = steadyWindows >= 1 ? round(afterFirst.filter(isAdmitted).length / steadyWindows / count, 3) : null;

  const retryAfters = denied.map((a) => a.retryAfterS).filter((x): x is number => x !== undefined);
  const maxRetryAfter = Math.max(1, Math.ceil(windowMs / 1000));
  const retry: RetryJudgement = input.retrySkipped
    ? { outcome: "skipped", finding: "not run", why: input.retrySkipped }
    : judgeRetry(
        answers.filter((a) => a.kind === "fill" || a.kind === "probe" || a.kind === "retry"),
        windowMs,
      );

  const figures: RuleFigures = {
    sent: answers.length,
    admitted: admitted.length,
    denied: denied.length,
    errors: errored.length,
    errorKinds,
    admittedPerS: round(admitted.length / seconds),
    deniedPerS: round(denied.length / seconds),
    offeredRate: round(steady.length / (input.steady.durationMs / 1000)),
    intendedRate: round(input.intendedRate),
    limitReached: denied.length > 0,
    maxInWindow,
    header,
    underAdmission: { maxFreeAtDenial, earlyDenials },
    steadyUtilization,
    retryAfter: {
      min: retryAfters.length ? Math.min(...retryAfters) : null,
      max: retryAfters.length ? Math.max(...retryAfters) : null,
      outOfRange: retryAfters.filter((x) => x < 1 || x > maxRetryAfter).length,
    },
    latency: {
      admitted: percentiles(admitted.map((a) => a.recvMs - a.sendMs)),
      denied: percentiles(denied.map((a) => a.recvMs - a.sendMs)),
    },
  };

  const series = chartSeries(answers, headerPoints, input.startMs, input.durationMs, windowMs);
  const window = judgeWindow({
    count,
    intervalS: input.intervalS,
    windowMs,
    startMs: input.startMs,
    maxInWindow,
    admitted: admitted.length,
    denied: denied.length,
    hidden: series.hiddenTotal,
    latencyP50Ms: figures.latency.admitted.p50,
    offeredRate: figures.offeredRate,
    intendedRate: figures.intendedRate,
  });
  const judgement = judgeRule(
    { window, header: judgeHeader(header, count, input.intervalS, input.startMs, headerPoints.length > 0), retry },
    { count: errored.length, kinds: errorKinds.map((e) => `${e.error} x${e.count}`).join("; ") },
  );
  return { figures, judgement, series };
}
