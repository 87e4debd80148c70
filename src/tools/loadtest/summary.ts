// The summary printed at the end of a run: one row per rule (cli-table3), then failures and notes.
import Table from "cli-table3";
import { formatWindow, type RetryOutcome } from "./analysis.ts";
import type { LoadTestResult, RuleResult } from "./loadtest.ts";

const ms = (x: number | null) => (x === null ? "-" : x < 10 ? x.toFixed(1) : Math.round(x).toString());
const rate = (x: number) => (x >= 100 ? Math.round(x).toString() : x >= 10 ? x.toFixed(1).replace(/\.0$/, "") : x.toFixed(2).replace(/\.?0+$/, ""));

function retryCell(retry: RetryOutcome): string {
  switch (retry.status) {
    case "admitted":
      return `ok ${retry.retryAfterS} s`;
    case "refused":
      return `REFUSED`;
    case "error":
      return "error";
    case "not-reached":
      return "n/a";
    case "skipped":
      return "skip";
  }
}

function row(r: RuleResult): string[] {
  const f = r.figures;
  return [
    String(r.rule),
    r.name,
    `${r.limit.count}/${r.limit.intervalS} s`,
    formatWindow(r.windowMs),
    `${rate(f.offeredRate)}/${rate(f.intendedRate)}`,
    f.limitReached ? "yes" : "no",
    `${f.maxInWindow.admitted}/${r.limit.count}`,
    String(f.header.exposure),
    String(f.underAdmission.maxFreeAtDenial),
    retryCell(f.retry),
    `${ms(f.latency.admitted.p50)}/${ms(f.latency.admitted.p99)}`,
    `${ms(f.latency.denied.p50)}/${ms(f.latency.denied.p99)}`,
    String(f.errors),
    r.pass ? "pass" : "FAIL",
  ];
}

/** The table and the lines under it, as printed by `npm run loadtest`. */
export function renderSummary(result: LoadTestResult): string {
  const table = new Table({
    head: ["row", "rule", "limit", "window", "offered/intended /s", "reached", "max in window", "header", "under", "retry", "admit p50/p99 ms", "deny p50/p99 ms", "err", "result"],
    style: { head: [], border: [], compact: true },
    colAligns: ["right", "left", "right", "right", "right", "center", "right", "right", "right", "left", "right", "right", "right", "left"],
  });
  for (const r of result.rules) table.push(row(r));

  const failed = result.rules.filter((r) => !r.pass);
  const reached = result.rules.filter((r) => r.figures.limitReached).length;
  const lines = [
    `tollgate load test: region ${result.region}, time scale ${result.timeScale}` +
      (result.algorithm !== "sliding-window" ? `, limiter ${result.algorithm} (deliberately broken)` : "") +
      `, ${result.gateway.kind === "local" ? "local gateway" : `target ${result.gateway.url}`}`,
    table.toString(),
    `max in window: most admissions proven to lie in one window (must be <= count). header: proven admissions in the gateway's window plus the r it still offered (must be <= count).`,
    `under: most units provably free at a denial. retry: Retry-After of the probe, admitted on the first honoured retry.`,
    ...result.notes.map((n) => `note: ${n}`),
    ...failed.flatMap((r) => r.failures.map((f) => `FAIL row ${r.rule} ${r.name}: ${f}`)),
    `${result.rules.length - failed.length} of ${result.rules.length} rule(s) held; limit reached in ${reached} of ${result.rules.length}; ` +
      `traffic ${result.trafficTimeS} s (planned ${result.plannedTimeS} s), wall time ${result.wallTimeS} s.`,
    result.pass ? "PASS" : "FAIL",
  ];
  return lines.join("\n");
}
