// Pure: the run in CI's language, a JUnit XML report (junit-report-builder), as k6 and Gatling users
// export their thresholds: one test suite per region, one test case per row in it. The outcome
// words map onto JUnit's four states (docs/loadtest.md, "JUnit"):
//   held -> passed; failed -> <failure>; error -> <error> (answers that were no decision of the
//   limit: the check could not run as meant); unjudged -> <skipped> (nothing was proven either
//   way, which a JUnit reader shows apart from passed), or <failure> under --unjudged fail.
// Every case carries its verdict lines in <system-out> and the row's limit and scale as properties.
import junitReportBuilder from "junit-report-builder";
import type { Region } from "../../src/core/rules/schema.ts";
import { tableOfRule } from "../../src/core/rules/tables.ts";
import type { LoadTestResult, RuleResult } from "./loadtest.ts";
import { verdictLine, type Judgement } from "./outcome.ts";

/** The test case of a row: "row 12 runs-query-key (15/10 s)". */
export const caseName = (r: RuleResult): string => `row ${r.rule} ${r.name} (${r.limit.count}/${r.limit.intervalS} s)`;

/** The class of a row's case: its region and its upstream's table, so readers group them. */
export const caseClass = (r: RuleResult): string => `tollgate.loadtest.${r.region}.${tableOfRule(r.rule) ?? "hosted-api"}`;

function lines(r: RuleResult): string {
  const checks: [string, Judgement][] = [
    ["window", r.judgement.checks.window],
    ["header", r.judgement.checks.header],
    ["retry", r.judgement.checks.retry],
  ];
  return [`row ${r.rule} ${r.name}: ${verdictLine(r.judgement)}`, ...checks.map(([label, c]) => `  ${label}: ${verdictLine(c)}`), `  ${r.scaleWhy}`].join("\n");
}

/** The JUnit XML of a run. */
export function renderJunit(result: LoadTestResult): string {
  const builder = junitReportBuilder.newBuilder().name(`tollgate load test: ${result.verdict}`);
  const regions: Region[] = [...new Set(result.rules.map((r) => r.region))];
  for (const region of regions) {
    const suite = builder
      .testSuite()
      .name(`tollgate load test ${region}`)
      .timestamp(new Date(result.startedAt))
      .property("region", region)
      .property("algorithm", result.algorithm)
      .property("gateway", result.gateway.kind === "local" ? "local" : result.gateway.url)
      .property("unjudged", result.unjudged);
    for (const r of result.rules.filter((x) => x.region === region)) {
      const c = suite
        .testCase()
        .className(caseClass(r))
        .name(caseName(r))
        .time(r.schedule.durationS)
        .property("row", String(r.rule))
        .property("limit", `${r.limit.count}/${r.limit.intervalS} s`)
        .property("time scale", String(r.timeScale))
        .property("outcome", r.judgement.outcome)
        .standardOutput(lines(r));
      const { outcome, finding, why } = r.judgement;
      const message = why ? `${finding}: ${outcome}, because ${why}` : `${finding}: ${outcome}`;
      if (outcome === "failed") c.failure(message, "failed");
      else if (outcome === "error") c.error(message, "error");
      else if (outcome === "unjudged") {
        if (result.unjudged === "fail") c.failure(message, "unjudged");
        else c.skipped();
      } else if (outcome === "skipped") c.skipped();
    }
  }
  return builder.build();
}
