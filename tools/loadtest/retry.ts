// Pure: the retry client's judgement. It fills its window, takes a refusal whose Retry-After is a
// promise, waits exactly that long and retries once: a correct gateway admits the retry.
import { isAdmitted, isDenied, round, toleranceMs, type Answer } from "./answer.ts";
import type { Judgement } from "./outcome.ts";

export interface RetryJudgement extends Judgement {
  /** Retry-After of the refusal honoured, seconds (when there was one). */
  readonly retryAfterS?: number;
  /** From that refusal's answer to the retry's send. */
  readonly waitedMs?: number;
  /** At least this much longer than needed: the window freed a unit by then. */
  readonly overWaitMs?: number | null;
}

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
  return fill
    .filter((a) => isDenied(a) && a.retryAfterS !== undefined)
    .sort((a, b) => a.recvMs - b.recvMs)
    .at(-1);
}

/** Judges the retry client from its answers (fill, probes, retry). */
export function judgeRetry(answers: readonly Answer[], windowMs: number): RetryJudgement {
  const probe = retryPromise(answers, windowMs);
  const retry = answers.find((a) => a.kind === "retry");
  const noPromise = "no Retry-After promise to test";
  if (!probe) return { outcome: "unjudged", finding: noPromise, why: "the fill was not answered within one window and no probe was sent" };
  if (!isDenied(probe) || probe.retryAfterS === undefined) {
    const why = isAdmitted(probe)
      ? "no probe was refused: the window never filled, the answers took longer than a window"
      : `the probe failed (${probe.error ?? `status ${probe.status}`})`;
    return { outcome: "unjudged", finding: noPromise, why };
  }
  const retryAfterS = probe.retryAfterS;
  const fillAdmitted = answers.filter((a) => (a.kind === "fill" || a.kind === "probe") && isAdmitted(a));
  const freedBy = fillAdmitted.length > 0 ? Math.min(...fillAdmitted.map((a) => a.recvMs)) + windowMs : undefined;
  const overWaitMs = freedBy === undefined ? null : round(probe.recvMs + retryAfterS * 1000 - freedBy);
  const after = `after Retry-After ${retryAfterS} s`;
  if (!retry) return { outcome: "error", finding: `no retry ${after}`, why: "the retry was not sent", retryAfterS, overWaitMs };
  const waitedMs = round(retry.sendMs - probe.recvMs);
  const timing = { retryAfterS, waitedMs, overWaitMs };
  if (isAdmitted(retry)) return { outcome: "held", finding: `admitted on its first retry ${after}`, ...timing };
  if (isDenied(retry)) {
    const again = retry.retryAfterS === undefined ? "" : `, now told Retry-After ${retry.retryAfterS} s`;
    return {
      outcome: "failed",
      finding: `refused on its first retry ${after}`,
      why: `it was refused again after waiting ${round(waitedMs / 1000, 2)} s${again}`,
      ...timing,
    };
  }
  return { outcome: "error", finding: `no decision on its retry ${after}`, why: retry.error ?? `status ${retry.status}`, ...timing };
}
