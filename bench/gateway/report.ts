// Pure: the printed report (cli-table3, no colour, so it reads the same in a log or a README) and
// the JSON one. Over-admission gets its own banner above everything else: it is a broken limit,
// not a slow one.
import { textTable, type Align, type Cell } from "../../tools/kit/report.ts";
import type { BenchOptions, Storage } from "./args.ts";
import type { BenchResult } from "./bench.ts";
import { SHAPE_INFO } from "./shape-names.ts";
import type { Spread } from "./stats.ts";
import {
  beforeAndAfter,
  benchVerdict,
  issueTargets,
  summarize,
  summarizeDecisions,
  type BeforeAndAfterRow,
  type DecisionMixRow,
  type SummaryRow,
} from "./summary.ts";
import { TARGET_TITLES } from "./target-names.ts";

const STORAGE_TITLES: Readonly<Record<Storage, string>> = {
  ram: "SQLite files in RAM (commits without waiting for a disk)",
  tmpdir: "SQLite files in the OS temporary directory (Miniflare's default; on a disk, each commit waits for its fsync)",
};

const thousands = new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });

/** Figures as the table shows them: whole req/s, two decimals for ratios and CPU, ms by size. */
export const formats = {
  rate: (v: number) => thousands.format(v),
  ratio: (v: number) => v.toFixed(2),
  ms: (v: number) => (v < 10 ? v.toFixed(1) : thousands.format(v)),
  cpu: (v: number) => v.toFixed(2),
  /** A share as a whole percentage; a sliver is "<1%" and nearly all ">99%", never a rounded 0% or 100%. */
  share: (v: number) => (v > 0 && v < 0.005 ? "<1%" : v < 1 && v >= 0.995 ? ">99%" : `${Math.round(v * 100)}%`),
};

/**
 * "1,293 (1,180-1,320)": the median, and the range when the rounds differ. Shares read "99% (95% to
 * >99%)": a dash beside "<1%" or ">99%" would read as an arrow.
 */
export function formatSpread(s: Spread | undefined, format: (v: number) => string, separator = "-"): string {
  if (s === undefined) return "-";
  const median = format(s.median);
  const [min, max] = [format(s.min), format(s.max)];
  return s.n > 1 && min !== max ? `${median} (${min}${separator}${max})` : median;
}

function shapeLabel(row: SummaryRow): string {
  const info = SHAPE_INFO[row.shape];
  return `${info.number} ${info.title} (row ${info.route.row})`;
}

export function renderTable(rows: readonly SummaryRow[]): string {
  // The instructions column only when some run counted them (--instructions).
  const instructions = instructionsCounted(rows);
  const head = ["shape", "target", "req/s", "x bare", "p50 ms", "p99 ms", "CPU ms/req", "CPU x bare", ...(instructions ? ["instr x bare"] : []), "answers"];
  const aligns = head.map((_, i): Align => (i < 2 || i === head.length - 1 ? "left" : "right"));
  const lines: Cell[][] = [];
  let previous: string | undefined;
  for (const row of rows) {
    if (previous !== undefined && previous !== row.shape) lines.push([{ colSpan: head.length, content: "" }]);
    lines.push([
      previous === row.shape ? "" : shapeLabel(row),
      row.target,
      formatSpread(row.reqPerSec, formats.rate),
      formatSpread(row.vsBare, formats.ratio),
      formatSpread(row.p50Ms, formats.ms),
      formatSpread(row.p99Ms, formats.ms),
      formatSpread(row.cpuMsPerRequest, formats.cpu),
      formatSpread(row.cpuVsBare, formats.ratio),
      ...(instructions ? [formatSpread(row.instructionsVsBare, formats.ratio)] : []),
      row.problems.length > 0 ? `${row.answers} (!)` : row.answers,
    ]);
    previous = row.shape;
  }
  return textTable({ head, aligns, rows: lines });
}

/** The loud part: every target and round that admitted more than the rule's count. */
export function overAdmissionBanner(rows: readonly SummaryRow[]): string | undefined {
  const over = rows.filter((r) => r.burst === "over-admitted");
  if (over.length === 0) return undefined;
  const line = "!".repeat(78);
  return [line, `!!! OVER-ADMISSION: the hot-key burst admitted more than the rule's count`, ...over.map((r) => `!!!   ${r.target}: ${r.answers}`), line].join(
    "\n",
  );
}

/**
 * One line per shape: the ways the gateway decided, most used first, e.g. "2 same keys, warm:
 * lease 97%, object 3%, deny cache 0%"; with the counter failures, and the rounds whose metrics
 * could not be read, when there were any.
 */
export function renderDecisionMix(rows: readonly DecisionMixRow[]): string[] {
  return rows.map((row) => {
    const info = SHAPE_INFO[row.shape];
    const label = `  ${info.number} ${info.title}: `;
    if (row.read === 0) return `${label}not measured: the gateway's metrics could not be read (${row.rounds} of ${row.rounds} rounds)`;
    const ways = [
      { name: "lease", s: row.lease },
      { name: "deny cache", s: row.denyCache },
      { name: "object", s: row.object },
      ...(row.other !== undefined && row.other.max > 0 ? [{ name: "no counter", s: row.other }] : []),
    ].sort((a, b) => (b.s?.median ?? 0) - (a.s?.median ?? 0));
    const notes = [
      ...(row.decisions !== undefined && row.decisions.median !== row.sent
        ? [`${formatSpread(row.decisions, formats.rate)} decisions for ${formats.rate(row.sent)} requests`]
        : []),
      ...(row.failures !== undefined && row.failures.max > 0 ? [`counter failures ${formatSpread(row.failures, formats.rate)}`] : []),
      ...(row.read < row.rounds ? [`metrics unread in ${row.rounds - row.read} of ${row.rounds} rounds`] : []),
    ];
    return `${label}${ways.map((w) => `${w.name} ${formatSpread(w.s, formats.share, " to ")}`).join(", ")}${notes.length > 0 ? `; ${notes.join("; ")}` : ""}`;
  });
}

/**
 * One line per shape run by both: "2 same keys, warm: x bare 0.74 before, 0.81 now; now over
 * before 1.09 (1.02-1.15) req/s, 0.93 (0.90-0.97) CPU per request".
 */
export function renderBeforeAndAfter(rows: readonly BeforeAndAfterRow[]): string[] {
  return rows.map((row) => {
    const info = SHAPE_INFO[row.shape];
    return (
      `  ${info.number} ${info.title}: x bare ${formatSpread(row.before, formats.ratio)} before, ${formatSpread(row.after, formats.ratio)} now; ` +
      `now over before ${formatSpread(row.afterOverBefore, formats.ratio)} req/s, ${formatSpread(row.cpuAfterOverBefore, formats.ratio)} CPU per request`
    );
  });
}

export function renderReport(result: BenchResult, options: BenchOptions): string {
  const rows = summarize(result.runs, options.shapes, options.targets);
  const mix = renderDecisionMix(summarizeDecisions(result.runs, options.shapes));
  const mixBefore = result.before ? renderDecisionMix(summarizeDecisions(result.runs, options.shapes, "before")) : [];
  const compared = result.before ? renderBeforeAndAfter(beforeAndAfter(result.runs, rows, options.shapes)) : [];
  const banner = overAdmissionBanner(rows);
  const problems = rows.flatMap((r) => r.problems.map((p) => `  ${r.target}, shape ${SHAPE_INFO[r.shape].number}, ${p}`));
  const targets = issueTargets(rows);
  const m = result.machine;
  const unsettled = result.runs.filter((r) => !r.measurement.settled).length;
  const noisy = result.runs.filter((r) => !r.quietBefore).length;
  const caveats = [
    ...(unsettled > 0 ? [`  ${unsettled} run(s) did not go quiet within 20 s after the traffic: their CPU per request may be short`] : []),
    ...(noisy > 0 ? [`  ${noisy} run(s) started while a workerd was still busy (gave up waiting after 10 s): another load on the server core`] : []),
  ];
  return [
    ...(banner ? [banner, ""] : []),
    `gateway bench, ${result.startedAt.slice(0, 10)}: ${m.cpus} CPU (${m.cpuModel}), Node ${m.node}, load average at start ${m.loadAverageAtStart.map((l) => l.toFixed(2)).join(" ")}`,
    `serving ${options.serving}; ${options.rounds} round(s), targets alternating; ${result.pinning}`,
    ...(result.before ? [`before: tollgate at ${result.before.rev} (commit ${result.before.commit})`] : []),
    `Durable Object storage (--storage ${options.storage}): ${STORAGE_TITLES[options.storage]}, ${result.storageDir}`,
    `median of the rounds, (min-max) when they differ; "x bare" pairs each round with the bare Worker's run of the same round`,
    "",
    renderTable(rows),
    "",
    ...options.targets.map((t) => `  ${t.padEnd(8)} ${TARGET_TITLES[t]}`),
    "  answers  the statuses of the measured requests; the burst: admitted/count and the verdict",
    "  shape 5  a new client IP per request, sent as CF-Connecting-IP (Miniflare and wrangler dev keep a",
    "           client-sent one, checked at start; npm start's local edge would replace it)",
    "  CPU      utime+stime of the target's workerd processes per answered request, from the start of",
    "           the run until they were quiet again (deferred work, e.g. a counter's idle snapshot,",
    "           included; a clean-up alarm a whole window later is not). Shape 1's stops at its last",
    "           answer: shape 2 follows at once on the same keys, while their counters are warm",
    ...(options.instructions ? instructionsLegend(instructionsCounted(rows)) : []),
    "",
    ...(mix.length > 0
      ? [
          "how the gateway decided (median of the rounds): share of the measured requests answered on an",
          "admission lease or from the deny cache (no counter call), or after a counter object call:",
          ...mix,
          "",
        ]
      : []),
    ...(mixBefore.length > 0 ? [`how tollgate at ${result.before!.rev} decided (the same shares):`, ...mixBefore, ""] : []),
    ...(compared.length > 0
      ? [`the gateway now against tollgate at ${result.before!.rev} (medians of the rounds, each pair of runs from the same round):`, ...compared, ""]
      : []),
    "issue 10 targets (gateway req/s over bare, median of the paired rounds):",
    ...targets.map((t) => `  ${t.outcome.padEnd(12)} ${t.what}${t.detail ? `: ${t.detail}` : ""}`),
    ...(problems.length > 0 ? ["", "answers other than the shape demands (!):", ...problems] : []),
    ...(caveats.length > 0 ? ["", "caveats:", ...caveats] : []),
    "",
    `wall time ${result.wallSeconds.toFixed(1)} s`,
    benchVerdict(rows),
  ].join("\n");
}

/** What the instructions column means (--instructions), or why it is missing. */
function instructionsLegend(counted: boolean): string[] {
  if (!counted) return ["  instr    not counted: perf is missing here, or has no access to the CPU's instruction counter"];
  return [
    "  instr    user-mode instructions the target's workerd processes executed per answered request",
    "           (perf stat, over the same span as CPU): the work itself, which the machine's load and",
    "           speed do not move as they move CPU time and req/s; counting slows every target a little,",
    "           so the req/s and CPU of this run are not those of a run without --instructions",
  ];
}

/** Whether any run counted instructions (a row has them only then). */
function instructionsCounted(rows: readonly SummaryRow[]): boolean {
  return rows.some((r) => r.instructionsPerRequest !== undefined);
}

export function jsonReport(result: BenchResult, options: BenchOptions): unknown {
  const rows = summarize(result.runs, options.shapes, options.targets);
  return {
    ...result,
    options,
    summary: rows,
    decidedBy: summarizeDecisions(result.runs, options.shapes),
    ...(result.before && {
      decidedByBefore: summarizeDecisions(result.runs, options.shapes, "before"),
      beforeAndAfter: beforeAndAfter(result.runs, rows, options.shapes),
    }),
    issueTargets: issueTargets(rows),
    verdict: benchVerdict(rows),
  };
}
