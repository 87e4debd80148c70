// Pure: the printed report (cli-table3, no colour, so it reads the same in a log or in
// docs/accuracy.md), a table per scenario with a row per K, then one verdict line per scenario;
// and the JSON one.
import { textTable } from "../../tools/kit/report.ts";
import { runVerdict, type RunVerdict } from "../../tools/kit/verdict.ts";
import { percentiles } from "../../tools/loadtest/analysis.ts";
import { rttLabel } from "../edge/rtt.ts";
import type { AccuracyRun, ScenarioResult } from "./run.ts";
import { SCENARIOS } from "./run.ts";

/** Client-observed latency of the answered requests (status 0 got no answer), in ms. */
export function latencies(r: Pick<ScenarioResult, "timeline">): { p50: string; p99: string } {
  const answered = r.timeline.observations.filter((o) => o.status !== 0).map((o) => o.receivedAt - o.sentAt);
  const { p50, p99 } = percentiles(answered);
  const ms = (v: number | null) => (v === null ? "-" : String(+v.toFixed(1)));
  return { p50: ms(p50), p99: ms(p99) };
}

const seconds = (ms: number | undefined) => (ms === undefined ? "-" : `${+(ms / 1000).toFixed(1)} s`);

function row(r: ScenarioResult, count: number): string[] {
  const f = r.figures;
  const first = f.first429At === undefined ? "none" : `#${f.first429At} (RA ${seconds(f.first429RetryAfterMs)})`;
  const retry = f.retriesJudged === 0 ? "-" : `${f.retriesHonoured}/${f.retriesJudged}`;
  const local = f.localAdmitted === 0 ? "-" : `${f.localAdmitted} (${f.localFullestPerIsolate}/isolate, ${f.outageFullestWindow} all)`;
  return [
    String(r.isolates),
    String(f.requests),
    `${f.admittedInFirstWindow}/${count}`,
    String(f.admitted),
    String(f.denied),
    first,
    String(f.fullestWindow),
    String(f.overAdmissions),
    String(f.early429s),
    retry,
    local,
    latencies(r).p50,
    latencies(r).p99,
    f.refusalP95Ms === undefined ? "-" : String(+f.refusalP95Ms.toFixed(1)),
    r.problems.length === 0 ? "ok" : r.problems.join("; "),
  ];
}

/** Short heads, so a table fits 140 columns; docs/accuracy.md says what each means. */
const HEAD = [
  "K",
  "sent",
  "in window",
  "admitted",
  "429s",
  "first 429",
  "fullest",
  "over",
  "early",
  "RA kept",
  "local (outage)",
  "p50 ms",
  "p99 ms",
  "429 p95",
  "verdict",
];

export function renderScenario(run: AccuracyRun, name: string): string {
  const scenario = SCENARIOS.get(name)!;
  const results = run.results.filter((r) => r.scenario === name);
  const table = textTable({
    head: HEAD,
    rows: results.map((r) => row(r, run.limit.count)),
    wrap: true,
    widths: [4, 6, 11, 10, 6, 17, 9, 6, 7, 9, 20, 8, 8, 8, 32],
  });
  const notes = results.flatMap((r) => r.notes.map((note) => `  K=${r.isolates}: ${note}`));
  return [`${name}: ${scenario.does}`, `  expected: ${scenario.expects}`, table, ...notes].join("\n");
}

/** One line per scenario: met everywhere, or where it was not. */
export function verdictLine(run: AccuracyRun, name: string): string {
  const results = run.results.filter((r) => r.scenario === name);
  const failed = results.filter((r) => r.problems.length > 0);
  const ks = results.map((r) => r.isolates).join(",");
  if (failed.length === 0) return `${name}: PASS at K=${ks}`;
  return `${name}: FAIL at K=${failed.map((r) => r.isolates).join(",")} of ${ks}: ${failed.map((r) => `K=${r.isolates} ${r.problems.join(", ")}`).join("; ")}`;
}

export function renderReport(run: AccuracyRun): string {
  const names = [...new Set(run.results.map((r) => r.scenario))];
  const { target, limit } = run;
  const header = [
    `row ${target.row} "${target.name}": ${target.method} ${target.path}, ${target.count} per ${target.intervalS} s per API key; TIME_SCALE ${run.timeScale}: ${limit.count} per ${limit.intervalMs} ms`,
    `COUNTER_TIMEOUT_MS ${run.counterTimeoutMs}, OVERRIDES_REFRESH_MS ${run.overridesRefreshMs}; Retry-After (RA) in real seconds`,
    `round trip on every isolate-to-object call: ${run.rtt ? rttLabel(run.rtt) : "none"}; p50/p99: client-observed latency`,
    ...Object.entries(run.isolation).map(([k, text]) => `K=${k}: ${text}`),
  ];
  const verdicts = ["verdicts:", ...names.map((name) => `  ${verdictLine(run, name)}`)].join("\n");
  return [header.join("\n"), ...names.map((name) => renderScenario(run, name)), verdicts, accuracyVerdict(run)].join("\n\n");
}

/** PASS when every scenario met its expectation at every K. */
export const accuracyVerdict = (run: AccuracyRun): RunVerdict => runVerdict(run.results.some((r) => r.problems.length > 0));

/** The raw figures and timelines, for a later look or another analysis. */
export function jsonReport(run: AccuracyRun): unknown {
  return { ...run, verdicts: [...new Set(run.results.map((r) => r.scenario))].map((name) => verdictLine(run, name)), verdict: accuracyVerdict(run) };
}
