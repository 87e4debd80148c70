// Pure: whether a run's answers are the ones its shape demands. The hot-key burst is judged
// against the rule's count: over-admission is a broken limit, the one failure the bench exists to
// catch loudly; fewer than count admitted is a conservative (under-admitting) limiter.
import type { Measurement } from "./drive.ts";
import type { Expectation } from "./shapes.ts";

export type BurstVerdict = "exact" | "over-admitted" | "under-admitted";

export function burstVerdict(admitted: number, count: number): BurstVerdict {
  if (admitted > count) return "over-admitted";
  return admitted === count ? "exact" : "under-admitted";
}

export interface AnswerCheck {
  readonly ok: boolean;
  /** Short, for the table: "200 x1000", "15/15 exact", "16/15 OVER-ADMITTED". */
  readonly summary: string;
  /** Why it is not ok, for the notes under the table. */
  readonly problem?: string;
  readonly burst?: BurstVerdict;
}

/** "200 x995, 502 x5" in status order. */
export function statusSummary(statuses: Readonly<Record<string, number>>): string {
  const parts = Object.entries(statuses)
    .sort(([a], [b]) => Number(a) - Number(b))
    .map(([status, n]) => `${status} x${n}`);
  return parts.join(", ") || "no answer";
}

/**
 * @param sent the requests the run sent (answered or not)
 */
export function checkAnswers(expect: Expectation, m: Pick<Measurement, "statuses" | "errors" | "admitted" | "answered">, sent: number): AnswerCheck {
  const unanswered = sent - m.answered;
  const lost = unanswered > 0 ? `${unanswered} of ${sent} unanswered (${m.errors} connection errors or timeouts)` : undefined;
  if (expect.kind === "burst") {
    const burst = burstVerdict(m.admitted, expect.count);
    const summary = `${m.admitted}/${expect.count} ${burst === "over-admitted" ? "OVER-ADMITTED" : burst}`;
    const others = Object.entries(m.statuses).filter(([s]) => !s.startsWith("2") && s !== "429");
    const problems = [
      burst === "over-admitted" ? `admitted ${m.admitted} of a burst on one key whose limit is ${expect.count}: the limit did not hold` : undefined,
      others.length > 0 ? `answers other than 2xx or 429: ${statusSummary(Object.fromEntries(others))}` : undefined,
      lost,
    ].filter((p): p is string => p !== undefined);
    return { ok: problems.length === 0, summary, burst, ...(problems.length > 0 ? { problem: problems.join("; ") } : {}) };
  }
  const wanted = expect.kind === "admit-all" ? (s: string) => s.startsWith("2") : (s: string) => s === "429";
  const unexpected = Object.entries(m.statuses).filter(([s]) => !wanted(s));
  const problems = [
    unexpected.length > 0 ? `expected ${expect.kind === "admit-all" ? "every answer 2xx" : "every answer 429"}, got ${statusSummary(m.statuses)}` : undefined,
    lost,
  ].filter((p): p is string => p !== undefined);
  return { ok: problems.length === 0, summary: statusSummary(m.statuses), ...(problems.length > 0 ? { problem: problems.join("; ") } : {}) };
}
