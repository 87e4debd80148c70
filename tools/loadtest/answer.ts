// Pure: what the load test records for each request, and the slack it grants the gateway's clock.
// Times are the tool's own clock, in ms; the gateway decided each request at some moment in
// [sendMs, recvMs] and nothing more is assumed (see analysis.ts).
import type { Phase } from "./traffic.ts";

/** What the tool sent for: the three clients, plus the retry client's fill and probe. */
export type AnswerKind = Phase | "fill" | "probe";

export interface Answer {
  readonly kind: AnswerKind;
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

/**
 * The gateway let it through: any answer below 500 but a 429 (an upstream's own 401 or 404 to a
 * forwarded request is an admission; runner.ts checks it carries the gateway's RateLimit header).
 */
export const isAdmitted = (a: Answer): boolean => a.status >= 200 && a.status < 500 && a.status !== 429;
export const isDenied = (a: Answer): boolean => a.status === 429;

/** The client an answer belongs to: the retry client's fill and probe are its own. */
export const clientOf = (kind: AnswerKind): Phase => (kind === "fill" || kind === "probe" ? "retry" : kind);

/** Slack granted to the gateway's clock: 5 ms plus 0.1 % of the window (clock rate drift). */
export const toleranceMs = (windowMs: number): number => 5 + windowMs * 0.001;

export const round = (x: number, digits = 1): number => Math.round(x * 10 ** digits) / 10 ** digits;

/** "167 ms", "1 s", "60 s". */
export function formatWindow(windowMs: number): string {
  return windowMs < 1000 ? `${round(windowMs, 0)} ms` : `${round(windowMs / 1000, 2)} s`;
}

/** Index of the first element >= x. */
export function lowerBound(sorted: ArrayLike<number>, x: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Index of the first element > x. */
export function upperBound(sorted: ArrayLike<number>, x: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid]! <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
