// Pure: the figures of one rule, judged in the outcome vocabulary (outcome.ts). The window check
// decides whether the limit held; the RateLimit check and the retry client can fail a rule but
// never make it "held" alone (they do not show the limit reached).
import { formatWindow, round, toleranceMs } from "./answer.ts";
import type { Judgement } from "./outcome.ts";
import type { RetryJudgement } from "./retry.ts";

export interface WindowFinding {
  /** Admissions proven to lie in one window. */
  readonly admitted: number;
  /** Earliest send of that set (the tool's ms), to find it on the chart. */
  readonly atMs: number;
}

export interface HeaderFinding {
  /** Most of (admissions proven in the gateway's window + the `r` it still offered). */
  readonly exposure: number;
  readonly atMs: number;
  /** The `r` the gateway reported there, and how many admissions were proven in its window. */
  readonly remaining: number;
  readonly proven: number;
}

export interface RuleJudgement extends Judgement {
  readonly checks: { readonly window: Judgement; readonly header: Judgement; readonly retry: RetryJudgement };
}

/** What the window check needs to know about a rule and its run. */
export interface WindowFacts {
  readonly count: number;
  /** The published interval, seconds: findings speak of the rule as published. */
  readonly intervalS: number;
  /** The interval as the gateway applied it (time-scaled), ms. */
  readonly windowMs: number;
  readonly startMs: number;
  readonly maxInWindow: WindowFinding;
  readonly admitted: number;
  readonly denied: number;
  /** Admissions answered a window or more after they were sent: no window can hold them. */
  readonly hidden: number;
  readonly latencyP50Ms: number | null;
  readonly offeredRate: number;
  readonly intendedRate: number;
}

const secondsIn = (atMs: number, startMs: number) => `${round((atMs - startMs) / 1000, 2)} s`;

/**
 * Held needs a window proven full: at most `count` everywhere says nothing about the limit if no
 * window was shown to reach it, so fewer is "unjudged", with what kept it from being reached.
 */
export function judgeWindow(f: WindowFacts): Judgement {
  const interval = `${f.intervalS} s`;
  const n = f.maxInWindow.admitted;
  const slowest = formatWindow(f.windowMs - toleranceMs(f.windowMs));
  if (n > f.count) {
    return {
      outcome: "failed",
      finding: `${n} admitted in one ${interval} window, limit ${f.count}`,
      // The window's two ends, as the chart's x axis counts (it marks the window by its end).
      why: `${n === 2 ? "both" : `all ${n}`} were sent and answered between ${secondsIn(f.maxInWindow.atMs, f.startMs)} and ${secondsIn(f.maxInWindow.atMs + f.windowMs, f.startMs)}`,
    };
  }
  if (n === f.count) {
    // Held all the same: no window that can be judged went over. The reason says how much the run could not see.
    const blind =
      f.hidden > 0
        ? {
            why: `a window was proven full and none held more, though ${f.hidden} of ${f.admitted} admissions took ${slowest} or longer to answer and fit no window (shaded on the chart)`,
          }
        : {};
    return { outcome: "held", finding: `at most ${n} admitted in any ${interval} window, limit ${f.count}`, ...blind };
  }
  if (f.admitted === 0) return { outcome: "unjudged", finding: `nothing admitted, limit ${f.count} per ${interval}`, why: "no request was admitted" };
  if (f.denied === 0) {
    return {
      outcome: "unjudged",
      finding: `at most ${n} admitted in any ${interval} window, limit ${f.count}`,
      why: `the limit was never reached: the gateway refused nothing (the steady client offered ${f.offeredRate}/s of the ${f.intendedRate}/s asked)`,
    };
  }
  const slow =
    f.hidden > 0
      ? `${f.hidden} of ${f.admitted} admissions took ${slowest} or longer to answer, so no window can hold them`
      : `answers took too long (p50 ${f.latencyP50Ms} ms against a ${formatWindow(f.windowMs)} window) to place ${f.count} in one`;
  const finding =
    n === 0
      ? `no admission provably inside any ${interval} window, limit ${f.count}`
      : `at most ${n} admitted in any provable ${interval} window, limit ${f.count}`;
  return { outcome: "unjudged", finding, why: `the gateway refused requests, but ${slow}` };
}

export function judgeHeader(h: HeaderFinding, count: number, intervalS: number, startMs: number, answered: boolean): Judgement {
  if (!answered) return { outcome: "unjudged", finding: "no admitted answer carried RateLimit r", why: "nothing was admitted with the header" };
  if (h.exposure > count) {
    return {
      outcome: "failed",
      finding: `RateLimit offered r=${h.remaining} with ${h.proven} admissions already in its ${intervalS} s window, limit ${count}`,
      why: `at ${secondsIn(h.atMs, startMs)} the gateway had lost count of admissions still in its window`,
    };
  }
  return { outcome: "held", finding: `admissions proven in the gateway's window plus the r it offered came to at most ${h.exposure}, limit ${count}` };
}

/**
 * The rule's outcome: failed when any check failed (the first one speaks for the rule; the others
 * keep their own lines), error when answers erred, else the window check's (held or unjudged):
 * only it shows the limit itself.
 */
export function judgeRule(checks: RuleJudgement["checks"], errors: { readonly count: number; readonly kinds: string }): RuleJudgement {
  const failed = [checks.window, checks.header, checks.retry].find((c) => c.outcome === "failed");
  if (failed) return { ...pick(failed), checks };
  if (errors.count > 0) return { outcome: "error", finding: `${errors.count} answer(s) were no decision of the limit`, why: errors.kinds, checks };
  return { ...pick(checks.window), checks };
}

const pick = (j: Judgement): Judgement => ({ outcome: j.outcome, finding: j.finding, ...(j.why ? { why: j.why } : {}) });
