// Pure: one line for each pair of the report's statements that look contradictory side by side,
// saying why both hold. The steady client's share of the count and "under-admission: none
// proven" measure different things: the share is what the client got, under-admission is whether
// the gateway refused a request while its window provably had room (analysis.ts, underAdmission).
import { formatWindow, round } from "./answer.ts";
import type { RuleResult } from "./loadtest.ts";

/** Below this share of the count per window the steady client reads as "under-admitted" at a glance. */
const FULL_SHARE = 0.95;

type Facts = Pick<RuleResult, "figures" | "limit" | "windowMs">;

/**
 * Why the steady client got less than the count per window although no refusal came with room left,
 * or undefined when the two statements do not meet (a full share, or under-admission proven).
 */
export function shareWithoutUnderAdmission(r: Facts): string | undefined {
  const f = r.figures;
  if (f.steadyUtilization === null || f.steadyUtilization >= FULL_SHARE || f.underAdmission.earlyDenials > 0) return undefined;
  const share = `${Math.round(f.steadyUtilization * 100)} %`;
  const perWindow = round((f.offeredRate * r.windowMs) / 1000, 1);
  if (perWindow < r.limit.count * FULL_SHARE) {
    const plan = f.offeredRate < f.intendedRate ? `${f.offeredRate}/s, capped from the ${f.intendedRate}/s asked` : `${f.offeredRate}/s, its plan`;
    return (
      `both true: the steady client sent only about ${perWindow} requests per ${formatWindow(r.windowMs)} window (${plan}), ` +
      `${Math.round((perWindow / r.limit.count) * 100)} % of the count: ${share} is all it could get, and proves nothing against the gateway`
    );
  }
  if (f.denied > 0) {
    return (
      `both true: the steady client got ${share} of the count because the gateway refused some of its requests, ` +
      `but every refusal came when the send and answer times allow the window to have been full, so none is proven early`
    );
  }
  return `both true: the gateway refused nothing, so the steady client's ${share} of the count is what was answered in time (errors or answers after its phase), not a refusal`;
}

/** "limit reached" is about refusals: with none, a window filled exactly to the limit still reads as held. */
export function reachedText(r: Facts): string {
  if (r.figures.limitReached) return "yes (the gateway refused)";
  return r.figures.maxInWindow.admitted === r.limit.count
    ? `no (it refused nothing; one window was filled exactly to the limit, ${r.limit.count}, and none beyond)`
    : "no (it refused nothing)";
}

/**
 * Why "held" and proven under-admission stand together: held is about never admitting more than
 * the count; these refusals came with room left, so the gateway was stricter than its limit.
 */
export function heldWithUnderAdmission(r: Pick<RuleResult, "figures" | "judgement">): string | undefined {
  const u = r.figures.underAdmission;
  if (r.judgement.outcome !== "held" || u.earlyDenials === 0) return undefined;
  return (
    `both true: held means no window admitted more than the count; these ${u.earlyDenials} refusal(s) came with up to ` +
    `${u.maxFreeAtDenial} unit(s) provably free, so the gateway was stricter than its limit there, which the verdict does not judge`
  );
}
