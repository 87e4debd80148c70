// Pure: the rounds of every (shape, target) reduced to what the table prints, each ratio paired
// with the bare Worker's run of the same round, the issue's targets judged from them, and how the
// gateway decided each shape's requests.
import type { RunRecord } from "./bench.ts";
import type { DecisionTotals } from "./decision-mix.ts";
import type { ShapeName } from "./shape-names.ts";
import { pairedRatios, spread, type Spread } from "./stats.ts";
import type { TargetName } from "./target-names.ts";
import type { BurstVerdict } from "./verdict.ts";
import { runVerdict, type RunVerdict } from "../../tools/kit/verdict.ts";

export interface SummaryRow {
  readonly shape: ShapeName;
  readonly target: TargetName;
  readonly reqPerSec: Spread | undefined;
  /** req/s over the bare Worker's in the same round (undefined for bare itself). */
  readonly vsBare: Spread | undefined;
  readonly p50Ms: Spread | undefined;
  readonly p99Ms: Spread | undefined;
  readonly cpuMsPerRequest: Spread | undefined;
  /** CPU per request over the bare Worker's in the same round. */
  readonly cpuVsBare: Spread | undefined;
  /** User-mode instructions per request (undefined unless counted: --instructions, and perf). */
  readonly instructionsPerRequest: Spread | undefined;
  /** Instructions per request over the bare Worker's in the same round. */
  readonly instructionsVsBare: Spread | undefined;
  /**
   * The answers: the summary every round shared; else, when rounds were off, the first one off and
   * how many were (each is in `problems`); else the distinct summaries.
   */
  readonly answers: string;
  /** Each round's problem, "round N: ...". */
  readonly problems: readonly string[];
  /** Hot-key burst only: the worst round's verdict (over beats under beats exact). */
  readonly burst?: BurstVerdict;
}

const BURST_SEVERITY: Readonly<Record<BurstVerdict, number>> = { exact: 0, "under-admitted": 1, "over-admitted": 2 };

function byRound(runs: readonly RunRecord[], rounds: number, value: (r: RunRecord) => number | undefined): (number | undefined)[] {
  return Array.from({ length: rounds }, (_, i) => {
    const run = runs.find((r) => r.round === i + 1);
    return run === undefined ? undefined : value(run);
  });
}

function answersOf(runs: readonly RunRecord[], summaries: readonly string[]): string {
  if (summaries.length === 1) return summaries[0]!;
  const off = runs.filter((r) => !r.check.ok);
  return off.length > 0 ? `${off[0]!.check.summary} in ${off.length} of ${runs.length} rounds` : summaries.join(" | ");
}

export function summarize(runs: readonly RunRecord[], shapes: readonly ShapeName[], targets: readonly TargetName[]): SummaryRow[] {
  const rounds = Math.max(0, ...runs.map((r) => r.round));
  const rows: SummaryRow[] = [];
  for (const shape of shapes) {
    const bare = runs.filter((r) => r.shape === shape && r.target === "bare");
    const bareRps = byRound(bare, rounds, (r) => r.measurement.reqPerSec);
    const bareCpu = byRound(bare, rounds, (r) => r.measurement.cpuMsPerRequest);
    const bareInstructions = byRound(bare, rounds, (r) => r.measurement.instructionsPerRequest);
    for (const target of targets) {
      const mine = runs.filter((r) => r.shape === shape && r.target === target);
      if (mine.length === 0) continue;
      const rps = byRound(mine, rounds, (r) => r.measurement.reqPerSec);
      const cpu = byRound(mine, rounds, (r) => r.measurement.cpuMsPerRequest);
      const instructions = byRound(mine, rounds, (r) => r.measurement.instructionsPerRequest);
      const summaries = [...new Set(mine.map((r) => r.check.summary))];
      const verdicts = mine.map((r) => r.check.burst).filter((v): v is BurstVerdict => v !== undefined);
      const worst = verdicts.sort((a, b) => BURST_SEVERITY[b] - BURST_SEVERITY[a])[0];
      rows.push({
        shape,
        target,
        reqPerSec: spread(rps),
        vsBare: target === "bare" ? undefined : spread(pairedRatios(rps, bareRps)),
        p50Ms: spread(mine.map((r) => r.measurement.p50Ms)),
        p99Ms: spread(mine.map((r) => r.measurement.p99Ms)),
        cpuMsPerRequest: spread(cpu),
        cpuVsBare: target === "bare" ? undefined : spread(pairedRatios(cpu, bareCpu)),
        instructionsPerRequest: spread(instructions),
        instructionsVsBare: target === "bare" ? undefined : spread(pairedRatios(instructions, bareInstructions)),
        answers: answersOf(mine, summaries),
        problems: mine.filter((r) => !r.check.ok).map((r) => `round ${r.round}: ${r.check.problem}`),
        ...(worst !== undefined ? { burst: worst } : {}),
      });
    }
  }
  return rows;
}

/**
 * FAIL when the gateway or the bare Worker answered otherwise than a shape demands. The peer's
 * answers are findings about the peer; the gateway's and the baseline's are ours.
 */
export const benchVerdict = (rows: readonly SummaryRow[]): RunVerdict => runVerdict(rows.some((r) => r.target !== "peer" && r.problems.length > 0));

/** One of issue 10's "done when" figures, judged on the gateway's row. */
export interface TargetCheck {
  readonly what: string;
  /** "met", "missed", or "not measured" (shape not run, or no bare baseline). */
  readonly outcome: "met" | "missed" | "not measured";
  readonly detail: string;
}

const RATIO_TARGETS: ReadonlyArray<{ shape: ShapeName; what: string; atLeast: number }> = [
  { shape: "warm-keys", what: "warm keys >= 0.8 of bare", atLeast: 0.8 },
  { shape: "new-keys", what: "new keys >= 0.5 of bare", atLeast: 0.5 },
  { shape: "deny-flood", what: "deny flood >= 1.0 of bare", atLeast: 1.0 },
];

/** Judged on the median of the paired per-round ratios, the figure the table prints. */
export function issueTargets(rows: readonly SummaryRow[]): TargetCheck[] {
  const gateway = (shape: ShapeName) => rows.find((r) => r.shape === shape && r.target === "gateway");
  const checks: TargetCheck[] = RATIO_TARGETS.map(({ shape, what, atLeast }) => {
    const ratio = gateway(shape)?.vsBare;
    if (!ratio) return { what, outcome: "not measured", detail: "" };
    return {
      what,
      outcome: ratio.median >= atLeast ? "met" : "missed",
      detail: `${ratio.median.toFixed(2)} (rounds ${ratio.min.toFixed(2)}-${ratio.max.toFixed(2)})`,
    };
  });
  const burst = gateway("hot-key");
  checks.push(
    burst?.burst === undefined
      ? { what: "hot-key burst exact", outcome: "not measured", detail: "" }
      : { what: "hot-key burst exact", outcome: burst.burst === "exact" ? "met" : "missed", detail: burst.answers },
  );
  return checks;
}

/** How the gateway decided one shape's measured requests: each way's share of its decisions, over the rounds. */
export interface DecisionMixRow {
  readonly shape: ShapeName;
  /** The gateway's runs of the shape, and how many of them had their metrics read. */
  readonly rounds: number;
  readonly read: number;
  /** Requests each measured run sent. */
  readonly sent: number;
  readonly decisions: Spread | undefined;
  readonly lease: Spread | undefined;
  readonly denyCache: Spread | undefined;
  readonly object: Spread | undefined;
  /** Decided with no counter at all (exempt or blocked by an override). */
  readonly other: Spread | undefined;
  readonly failures: Spread | undefined;
}

/** @param target which tollgate: the gateway, or `before` (the --before revision) */
export function summarizeDecisions(runs: readonly RunRecord[], shapes: readonly ShapeName[], target: TargetName = "gateway"): DecisionMixRow[] {
  const rows: DecisionMixRow[] = [];
  for (const shape of shapes) {
    const mine = runs.filter((r) => r.shape === shape && r.target === target);
    if (mine.length === 0) continue;
    const read = mine.map((r) => r.decidedBy).filter((t): t is DecisionTotals => t !== undefined);
    // A round that decided nothing has no shares (spread skips its NaN).
    const share = (part: (t: DecisionTotals) => number) => spread(read.map((t) => part(t) / t.decisions));
    rows.push({
      shape,
      rounds: mine.length,
      read: read.length,
      sent: mine[0]!.sent,
      decisions: spread(read.map((t) => t.decisions)),
      lease: share((t) => t.lease),
      denyCache: share((t) => t.denyCache),
      object: share((t) => t.object),
      other: share((t) => t.decisions - t.lease - t.denyCache - t.object),
      failures: spread(read.map((t) => t.failures)),
    });
  }
  return rows;
}

/** One shape's gateway against the gateway at the --before revision. */
export interface BeforeAndAfterRow {
  readonly shape: ShapeName;
  /** Each over the bare Worker's run of the same round. */
  readonly before: Spread | undefined;
  readonly after: Spread | undefined;
  /** The gateway's req/s over `before`'s, paired by round: above 1, this checkout is faster. */
  readonly afterOverBefore: Spread | undefined;
  /** The gateway's CPU per request over `before`'s, paired by round: below 1, it works less. */
  readonly cpuAfterOverBefore: Spread | undefined;
}

/** Per shape, the gateway against `before` (--before), when both ran it. */
export function beforeAndAfter(runs: readonly RunRecord[], rows: readonly SummaryRow[], shapes: readonly ShapeName[]): BeforeAndAfterRow[] {
  const rounds = Math.max(0, ...runs.map((r) => r.round));
  const result: BeforeAndAfterRow[] = [];
  for (const shape of shapes) {
    const of = (target: TargetName) => runs.filter((r) => r.shape === shape && r.target === target);
    const [after, before] = [of("gateway"), of("before")];
    if (after.length === 0 || before.length === 0) continue;
    const row = (target: TargetName) => rows.find((r) => r.shape === shape && r.target === target);
    const rps = (mine: readonly RunRecord[]) => byRound(mine, rounds, (r) => r.measurement.reqPerSec);
    const cpu = (mine: readonly RunRecord[]) => byRound(mine, rounds, (r) => r.measurement.cpuMsPerRequest);
    result.push({
      shape,
      before: row("before")?.vsBare,
      after: row("gateway")?.vsBare,
      afterOverBefore: spread(pairedRatios(rps(after), rps(before))),
      cpuAfterOverBefore: spread(pairedRatios(cpu(after), cpu(before))),
    });
  }
  return result;
}
