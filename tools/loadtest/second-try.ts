// Pure: one more window for a row the run left unjudged (no window proven full: its answers came
// too slowly, or its steady client fell behind while the machine was busy). Its steady client runs
// again on a fresh identity, so a fresh counter, once the planned traffic is over, at the same
// scale, rate and budget. The verdict stays honest: the analysis runs per counter over every
// answer of the row, both tries together, so the row is held only if a window was proven full at
// count and none above it on any counter, and it fails if either try saw more than count in one
// window. The row's verdict line says it took a second try and what the first proved, and the
// JSON carries both (`secondTry`).
import type { Answer } from "./answer.ts";
import { verdictLine } from "./outcome.ts";
import { placeRows, type Plan, type RulePlan } from "./plan.ts";
import { clientIdentity } from "./traffic.ts";
import type { RuleJudgement } from "./verdict.ts";

/** What the results say of a row's second try. */
export interface SecondTry {
  /** What the first try proved: its window check's verdict line. */
  readonly first: string;
  /** When the second steady client started, s since the traffic started, and for how long. */
  readonly startS: number;
  readonly durationS: number;
  /** The counter it used (ClientIdentity.key). */
  readonly identity: string;
}

/** Client address numbers (benchmarkIp) of second tries: none a first try or the capacity measurement uses. */
const SECOND_TRY_IPS = 100_000;

/**
 * Whether a row may take a second try: left unjudged by its window check (not failed, not erring),
 * with counters of its own, an identity that can be fresh, and a steady client that can reach
 * count within a window (a row planned out of reach stays unjudged with its reason).
 */
export function canTryAgain(rp: RulePlan, judgement: RuleJudgement, varyIp: boolean): boolean {
  return (
    judgement.outcome === "unjudged" &&
    judgement.checks.window.outcome === "unjudged" &&
    !rp.sharedIdentity &&
    (varyIp || rp.rule.identity !== "ip") &&
    rp.steadyRate * (rp.windowMs / 1000) >= rp.count
  );
}

/** The second tries: each row's steady client alone, on a fresh identity, placed under the run's budget. */
export function secondTryPlan(first: Plan, rows: readonly RulePlan[], varyIp: boolean): Plan {
  const again = rows.map((rp, i): RulePlan => {
    const fresh = clientIdentity(rp.rule, "steady", `${first.options.runId}-again-${rp.region}`, varyIp, SECOND_TRY_IPS + i);
    const source = rp.identities.steady.localAddress;
    const steady = { ...rp.steady, offsetMs: 0 };
    return {
      ...rp,
      startMs: 0,
      durationMs: Math.ceil(steady.durationMs),
      steady,
      bursts: { ...rp.bursts, offsetsMs: [] },
      retry: { kind: "skip", reason: "a second try sends the steady client only" },
      identities: { ...rp.identities, steady: source ? { ...fresh, localAddress: source } : fresh },
      load: [{ fromMs: 0, toMs: steady.durationMs, rate: steady.rate }],
      averageRate: steady.rate,
      expectedRequests: Math.round((steady.rate * steady.durationMs) / 1000),
    };
  });
  const placed = placeRows(again, first.options.budget);
  return { options: first.options, rules: placed, durationMs: Math.max(0, ...placed.map((r) => r.startMs + r.durationMs)) };
}

/** The row's answers and its second try's, the second moved onto the first traffic's clock (`offsetMs` after its start). */
export function withSecondTry(first: readonly Answer[], again: readonly Answer[], offsetMs: number): Answer[] {
  return [...first, ...again.map((a) => ({ ...a, sendMs: a.sendMs + offsetMs, recvMs: a.recvMs + offsetMs }))];
}

/** The judgement of both tries, its window check (and the row, when that check speaks for it) saying a second try ran. */
export function sayingSecondTry(both: RuleJudgement, first: string): RuleJudgement {
  const note = `a second try ran (the steady client again, on a fresh counter, after the planned traffic), the first having proved ${first}`;
  const window = { ...both.checks.window, why: both.checks.window.why ? `${note}; ${both.checks.window.why}` : note };
  const speaks = both.finding === both.checks.window.finding && both.outcome === both.checks.window.outcome;
  return { ...both, ...(speaks ? { why: window.why } : {}), checks: { ...both.checks, window } };
}

/** The first try's window check, as the second try's note quotes it. */
export const firstTryLine = (j: RuleJudgement): string => verdictLine(j.checks.window);
