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
import type { Phase } from "./traffic.ts";

/** What the tool sent for: the three clients, plus the retry client's probe and retry. */
export type AnswerKind = Phase | "fill" | "probe";

export interface Answer {
  readonly kind: AnswerKind | "retry";
  /** The counter the request was meant for (see ClientIdentity.key). */
  readonly identity: string;
  readonly sendMs: number;
  readonly recvMs: number;
  /** HTTP status; 0 when no answer arrived. */
  readonly status: number;
  /** `r` of the RateLimit header, when present. */
  readonly remaining?: number;
  /** Retry-After in seconds, on a 429. */
  readonly retryAfterS?: number;
  /** Why this answer is an error (wrong rule, no counter header, 5xx, network...), if it is one. */
  readonly error?: string;
}

export const isAdmitted = (a: Answer): boolean => a.status >= 200 && a.status < 300;
export const isDenied = (a: Answer): boolean => a.status === 429;

/** Slack granted to the gateway's clock: 5 ms plus 0.1 % of the window (clock rate drift). */
export const toleranceMs = (windowMs: number): number => 5 + windowMs * 0.001;

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

export interface WindowFinding {
  /** Admissions proven to lie in one window. */
  readonly admitted: number;
  /** Earliest send of that set (ms since the run started), to find it on the chart. */
  readonly atMs: number;
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

export interface HeaderFinding {
  /** Most of (admissions proven in the gateway's window + the `r` it still offered). */
  readonly exposure: number;
  readonly atMs: number;
  /** The `r` the gateway reported there, and how many admissions were proven in its window. */
  readonly remaining: number;
  readonly proven: number;
}

/**
 * For each admitted answer j with a RateLimit `r`: admissions i certainly in the window that ends
 * at j's decision (sent after j's answer minus a window, answered before j was sent), plus j, plus
 * the `r` units still offered. A correct gateway counts at least those admissions, so this never
 * exceeds `count` unless its accounting lost some.
 */
export function maxHeaderExposure(
  admitted: readonly (Span & { readonly remaining?: number })[],
  windowMs: number,
  tolMs = toleranceMs(windowMs),
): HeaderFinding {
  const queries = admitted.filter((a) => a.remaining !== undefined).sort((x, y) => x.s - y.s);
  if (queries.length === 0) return { exposure: 0, atMs: 0, remaining: 0, proven: 0 };
  const byReceipt = [...admitted].sort((x, y) => x.r - y.r);
  const counter = new RankCounter(admitted.map((a) => a.s));
  let next = 0;
  let best: HeaderFinding = { exposure: 0, atMs: 0, remaining: 0, proven: 0 };
  for (const j of queries) {
    while (next < byReceipt.length && byReceipt[next]!.r < j.s) counter.insert(byReceipt[next++]!.s);
    const earliest = j.r - windowMs + tolMs;
    const proven = 1 + counter.size - counter.countAtMost(earliest);
    const exposure = proven + j.remaining!;
    if (exposure > best.exposure) best = { exposure, atMs: j.s, remaining: j.remaining!, proven };
  }
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
export function underAdmission(admitted: readonly Span[], denied: readonly Span[], count: number, windowMs: number, tolMs = toleranceMs(windowMs)): UnderAdmission {
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

function lowerBound(sorted: ArrayLike<number>, x: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function upperBound(sorted: ArrayLike<number>, x: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid]! <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
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

const round = (x: number, digits = 1): number => Math.round(x * 10 ** digits) / 10 ** digits;

export type RetryOutcome =
  | { readonly status: "skipped"; readonly reason: string }
  | { readonly status: "not-reached"; readonly reason: string }
  | {
      readonly status: "admitted" | "refused" | "error";
      /** Retry-After of the probe's 429, seconds. */
      readonly retryAfterS: number;
      /** From the probe's answer to the retry's send. */
      readonly waitedMs: number;
      /** At least this much longer than needed: the window freed a unit by then. */
      readonly overWaitMs: number | null;
      readonly detail?: string;
    };

/**
 * The refusal whose Retry-After the retry client honours, if it has one. Either the last probe
 * (probes go one at a time after the fill, so a refused probe was decided after every admission),
 * or, when the whole fill was sent and answered within one window, its last refusal: with a fresh
 * counter nothing expires inside the first window, so every refusal came after every admission.
 */
export function retryPromise(answers: readonly Answer[], windowMs: number): Answer | undefined {
  const probes = answers.filter((a) => a.kind === "probe").sort((a, b) => a.sendMs - b.sendMs);
  if (probes.length > 0) return probes.at(-1);
  const fill = answers.filter((a) => a.kind === "fill");
  if (fill.length === 0) return undefined;
  const span = Math.max(...fill.map((a) => a.recvMs)) - Math.min(...fill.map((a) => a.sendMs));
  if (span >= windowMs - toleranceMs(windowMs)) return undefined;
  return fill.filter((a) => isDenied(a) && a.retryAfterS !== undefined).sort((a, b) => a.recvMs - b.recvMs).at(-1);
}

/** Judges the retry client: fill the window, get a refusal, wait its Retry-After, retry once. */
export function judgeRetry(answers: readonly Answer[], windowMs: number): RetryOutcome {
  const probe = retryPromise(answers, windowMs);
  const retry = answers.find((a) => a.kind === "retry");
  if (!probe) return { status: "not-reached", reason: "no refusal to honour (the fill was not answered within a window, and no probe was sent)" };
  if (!isDenied(probe) || probe.retryAfterS === undefined) {
    return { status: "not-reached", reason: isAdmitted(probe) ? "no probe was refused (the window never filled: the answers took longer than a window)" : `the probe failed: ${probe.error ?? probe.status}` };
  }
  const fillAdmitted = answers.filter((a) => (a.kind === "fill" || a.kind === "probe") && isAdmitted(a));
  const freedBy = fillAdmitted.length > 0 ? Math.min(...fillAdmitted.map((a) => a.recvMs)) + windowMs : undefined;
  const promised = probe.recvMs + probe.retryAfterS * 1000;
  const overWaitMs = freedBy === undefined ? null : round(promised - freedBy);
  if (!retry) return { status: "error", retryAfterS: probe.retryAfterS, waitedMs: 0, overWaitMs, detail: "the retry was not sent" };
  const waitedMs = round(retry.sendMs - probe.recvMs);
  if (isAdmitted(retry)) return { status: "admitted", retryAfterS: probe.retryAfterS, waitedMs, overWaitMs };
  if (isDenied(retry)) {
    const again = retry.retryAfterS === undefined ? "" : `, now told Retry-After ${retry.retryAfterS}`;
    return { status: "refused", retryAfterS: probe.retryAfterS, waitedMs, overWaitMs, detail: `429 again after waiting ${round(waitedMs / 1000, 2)} s (Retry-After ${probe.retryAfterS}${again})` };
  }
  return { status: "error", retryAfterS: probe.retryAfterS, waitedMs, overWaitMs, detail: retry.error ?? `status ${retry.status}` };
}

export interface Series {
  /** Sample times, seconds since the rule's start. */
  readonly t: readonly number[];
  /** Per client (steady, burst): answers received in the trailing window at each sample. */
  readonly lines: readonly { readonly client: Phase; readonly admitted: readonly number[]; readonly denied: readonly number[] }[];
}

/**
 * Admitted and denied answers per client in the trailing window (by receipt time), sampled across
 * the rule's slot: the chart's view of traffic against the limit. Display only: the verdict
 * comes from the proven checks above.
 */
export function trailingSeries(answers: readonly Answer[], startMs: number, durationMs: number, windowMs: number, samples = 240): Series {
  const step = durationMs / (samples - 1);
  const t = Array.from({ length: samples }, (_, i) => startMs + i * step);
  const lines = (["steady", "burst"] as const).map((client) => {
    const own = answers.filter((a) => a.kind === client);
    const adm = own.filter(isAdmitted).map((a) => a.recvMs).sort((x, y) => x - y);
    const den = own.filter(isDenied).map((a) => a.recvMs).sort((x, y) => x - y);
    const inWindow = (sorted: number[], at: number) => upperBound(sorted, at) - upperBound(sorted, at - windowMs);
    return { client, admitted: t.map((at) => inWindow(adm, at)), denied: t.map((at) => inWindow(den, at)) };
  });
  return { t: t.map((x) => round((x - startMs) / 1000, 3)), lines };
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
  readonly retry: RetryOutcome;
  readonly retryAfter: { readonly min: number | null; readonly max: number | null; readonly outOfRange: number };
  readonly latency: { readonly admitted: Percentiles; readonly denied: Percentiles };
}

export interface RuleVerdict {
  readonly pass: boolean;
  /** Why it failed, one line each; empty when it passed. */
  readonly failures: readonly string[];
}

export interface AnalysisInput {
  readonly count: number;
  readonly windowMs: number;
  readonly startMs: number;
  readonly durationMs: number;
  readonly steady: { readonly offsetMs: number; readonly durationMs: number };
  readonly intendedRate: number;
  readonly retrySkipped?: string;
}

/** All figures and the verdict for one rule. */
export function analyzeRule(input: AnalysisInput, answers: readonly Answer[]): { figures: RuleFigures; verdict: RuleVerdict; series: Series } {
  const { count, windowMs } = input;
  const byIdentity = new Map<string, Answer[]>();
  for (const a of answers) {
    const list = byIdentity.get(a.identity);
    if (list) list.push(a);
    else byIdentity.set(a.identity, [a]);
  }

  let maxInWindow: WindowFinding = { admitted: 0, atMs: 0 };
  let header: HeaderFinding = { exposure: 0, atMs: 0, remaining: 0, proven: 0 };
  let maxFreeAtDenial = 0;
  let earlyDenials = 0;
  for (const list of byIdentity.values()) {
    const adm = list.filter(isAdmitted).map((a) => ({ s: a.sendMs, r: a.recvMs, remaining: a.remaining }));
    const den = list.filter(isDenied).map((a) => ({ s: a.sendMs, r: a.recvMs }));
    const w = maxProvenInWindow(adm, windowMs);
    if (w.admitted > maxInWindow.admitted) maxInWindow = w;
    const h = maxHeaderExposure(adm, windowMs);
    if (h.exposure > header.exposure) header = h;
    const u = underAdmission(adm, den, count, windowMs);
    maxFreeAtDenial = Math.max(maxFreeAtDenial, u.maxFreeAtDenial);
    earlyDenials += u.earlyDenials;
  }

  const admitted = answers.filter(isAdmitted);
  const denied = answers.filter(isDenied);
  const errored = answers.filter((a) => a.error !== undefined);
  const kinds = new Map<string, number>();
  for (const a of errored) kinds.set(a.error!, (kinds.get(a.error!) ?? 0) + 1);
  const errorKinds = [...kinds].sort((a, b) => b[1] - a[1]).slice(0, 5).map(([error, n]) => ({ error, count: n }));

  const seconds = input.durationMs / 1000;
  const steady = answers.filter((a) => a.kind === "steady");
  const steadyStart = input.startMs + input.steady.offsetMs;
  const afterFirst = steady.filter((a) => a.sendMs >= steadyStart + windowMs);
  const steadyWindows = (input.steady.durationMs - windowMs) / windowMs;
  const steadyUtilization = steadyWindows >= 1 ? round(afterFirst.filter(isAdmitted).length / steadyWindows / count, 3) : null;

  const retryAfters = denied.map((a) => a.retryAfterS).filter((x): x is number => x !== undefined);
  const maxRetryAfter = Math.max(1, Math.ceil(windowMs / 1000));
  const retry: RetryOutcome = input.retrySkipped
    ? { status: "skipped", reason: input.retrySkipped }
    : judgeRetry(answers.filter((a) => a.kind === "fill" || a.kind === "probe" || a.kind === "retry"), windowMs);

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
    retry,
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

  const failures: string[] = [];
  if (maxInWindow.admitted > count) {
    failures.push(`${maxInWindow.admitted} requests admitted within one window of ${formatWindow(windowMs)} (limit ${count}), at ${round((maxInWindow.atMs - input.startMs) / 1000, 2)} s`);
  }
  if (header.exposure > count) {
    failures.push(
      `RateLimit said r=${header.remaining} with ${header.proven} admissions already in the window (limit ${count}), at ${round((header.atMs - input.startMs) / 1000, 2)} s: the gateway lost count of its window`,
    );
  }
  if (retry.status === "refused") failures.push(`retry client refused on its first honoured retry: ${retry.detail}`);
  if (errored.length > 0) failures.push(`${errored.length} error(s): ${errorKinds.map((e) => `${e.error} x${e.count}`).join("; ")}`);

  return {
    figures,
    verdict: { pass: failures.length === 0, failures },
    series: trailingSeries(answers, input.startMs, input.durationMs, windowMs),
  };
}

/** "167 ms", "1 s", "60 s". */
export function formatWindow(windowMs: number): string {
  return windowMs < 1000 ? `${round(windowMs, 0)} ms` : `${round(windowMs / 1000, 2)} s`;
}
