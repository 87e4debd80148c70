// The summary printed at the end of a run: one table row per rule (cli-table3), then each rule's
// verdict line with its reason, the notes and the totals. By default every line fits 100 columns;
// `--wide` adds the rates, window, under-admission and latency columns (see report.ts for all).
import { textTable, wrap, type Align } from "../kit/report.ts";
import { formatWindow } from "./answer.ts";
import type { LoadTestResult, RuleResult } from "./loadtest.ts";
import { OUTCOME_MEANINGS, OUTCOMES, tally, verdictLine, type Judgement } from "./outcome.ts";

export const SUMMARY_WIDTH = 100;
/** Longer rule names are cut to this (the longest published name is 18 characters). */
const NAME_WIDTH = 18;

const ms = (x: number | null) => (x === null ? "-" : x < 10 ? x.toFixed(1) : Math.round(x).toString());
const rate = (x: number) => (x >= 100 ? Math.round(x).toString() : x >= 10 ? x.toFixed(1).replace(/\.0$/, "") : x.toFixed(2).replace(/\.?0+$/, ""));
const name = (s: string) => (s.length > NAME_WIDTH ? `${s.slice(0, NAME_WIDTH - 1)}…` : s);

interface Column {
  readonly head: string;
  readonly align: Align;
  readonly cell: (r: RuleResult) => string;
  /** Shown only with --wide. */
  readonly wide?: boolean;
}

const COLUMNS: readonly Column[] = [
  { head: "row", align: "right", cell: (r) => String(r.rule) },
  { head: "rule", align: "left", cell: (r) => name(r.name) },
  { head: "limit", align: "right", cell: (r) => `${r.limit.count}/${r.limit.intervalS} s` },
  { head: "scale", align: "right", cell: (r) => String(r.timeScale) },
  { head: "window", align: "right", cell: (r) => formatWindow(r.windowMs), wide: true },
  { head: "offered/intended /s", align: "right", cell: (r) => `${rate(r.figures.offeredRate)}/${rate(r.figures.intendedRate)}`, wide: true },
  { head: "reached", align: "center", cell: (r) => (r.figures.limitReached ? "yes" : "no"), wide: true },
  { head: "proven", align: "right", cell: (r) => String(r.figures.maxInWindow.admitted) },
  { head: "header", align: "right", cell: (r) => String(r.figures.header.exposure) },
  { head: "under", align: "right", cell: (r) => String(r.figures.underAdmission.maxFreeAtDenial), wide: true },
  { head: "retry", align: "left", cell: (r) => r.judgement.checks.retry.outcome },
  { head: "admit p50/p99 ms", align: "right", cell: (r) => `${ms(r.figures.latency.admitted.p50)}/${ms(r.figures.latency.admitted.p99)}`, wide: true },
  { head: "deny p50/p99 ms", align: "right", cell: (r) => `${ms(r.figures.latency.denied.p50)}/${ms(r.figures.latency.denied.p99)}`, wide: true },
  { head: "err", align: "right", cell: (r) => String(r.figures.errors) },
  { head: "outcome", align: "left", cell: (r) => r.judgement.outcome },
];

/**
 * The rule's verdict line, then its retry client's (a word column of the table, so always with its
 * reason), and any other check that failed without speaking for the rule.
 */
function verdictLines(r: RuleResult, regions: number): string[] {
  const { judgement } = r;
  const checks: [string, Judgement][] = [
    ["window", judgement.checks.window],
    ["header", judgement.checks.header],
    ["retry", judgement.checks.retry],
  ];
  const shown = checks.filter(([label, c]) => label === "retry" || (c.outcome === "failed" && c.finding !== judgement.finding));
  return [
    `row ${r.rule} ${r.name}${regions > 1 ? ` (${r.region})` : ""}: ${verdictLine(judgement)}`,
    ...shown.map(([label, c]) => `  ${label}: ${verdictLine(c)}`),
  ];
}

export interface SummaryOptions {
  /** Every column, and lines left unwrapped. */
  readonly wide?: boolean;
}

/** The table and the lines under it, as printed by `npm run loadtest`. */
export function renderSummary(result: LoadTestResult, options: SummaryOptions = {}): string {
  const wide = options.wide ?? false;
  const columns = COLUMNS.filter((c) => wide || !c.wide);
  // One table per region, each under its name when there are several.
  const tables = result.regions.map((region) => {
    const table = textTable({
      head: columns.map((c) => c.head),
      aligns: columns.map((c) => c.align),
      rows: result.rules.filter((r) => r.region === region).map((r) => columns.map((c) => c.cell(r))),
    });
    return result.regions.length > 1 ? `region ${region}:\n${table}` : table;
  });

  const outcomes = result.rules.map((r) => r.judgement.outcome);
  const seen = OUTCOMES.filter((o) => outcomes.includes(o) || result.rules.some((r) => r.judgement.checks.retry.outcome === o));
  const title =
    `tollgate load test: region ${result.regions.join(", ")}, time scale ${result.timeScale}` +
    (result.algorithm !== "sliding-window" ? `, limiter ${result.algorithm} (deliberately broken)` : "") +
    `, ${result.gateway.kind === "local" ? "local gateway" : `target ${result.gateway.url}`}`;
  const text = [
    `proven: most admissions proven in one window (sent and answered inside it); above the limit fails.`,
    `header: admissions proven in the gateway's window + the r it still offered; above the limit fails.`,
    ...seen.map((o) => `${o}: ${OUTCOME_MEANINGS[o]}.`),
    `scale: the row's time scale (its interval divided by it on its gateway); counts are the published ones.`,
    ...result.rules.flatMap((r) => verdictLines(r, result.regions.length)),
    ...result.notes.map((n) => `note: ${n}`),
    `${result.rules.length} ${result.regions.length > 1 ? `row(s) in ${result.regions.length} regions` : "rule(s)"}: ${tally(outcomes)}; limit reached in ${result.rules.filter((r) => r.figures.limitReached).length}; ` +
      `traffic ${result.trafficTimeS} s (planned ${result.plannedTimeS} s), wall time ${result.wallTimeS} s.`,
  ];
  const fit = (t: string) => (wide ? [t] : wrap(t, SUMMARY_WIDTH));
  return [...fit(title), ...tables, ...text.flatMap(fit), result.verdict].join("\n");
}
