import { describe, expect, it } from "vitest";
import { diffTotals, NO_DECISIONS, parseDecisionTotals } from "../../../../bench/gateway/decision-mix.ts";
import { emptyBatch, recordDecision, recordFailure, type DecisionSample } from "../../../../src/core/metrics/aggregate.ts";
import { prometheusText } from "../../../../src/admin/metrics/prometheus.ts";

/** The gateway's own text for these decisions, as GET /_tollgate/metrics prints it. */
function metricsFor(decisions: readonly DecisionSample[], failures: readonly number[] = []): string {
  const batch = emptyBatch();
  for (const d of decisions) recordDecision(batch, d, 0);
  for (const rule of failures) recordFailure(batch, rule, `rule-${rule}`);
  return prometheusText("us", batch);
}

const times = (n: number, d: DecisionSample) => Array.from({ length: n }, () => d);
const limit = { count: 15, interval: 10 };

describe("parseDecisionTotals", () => {
  it("sums every rule's decisions, lease and deny-cache answers, object calls and failures", () => {
    const text = metricsFor(
      [
        ...times(3, { rule: 16, ruleName: "datasets-key", outcome: "admitted", decidedBy: "object", counterMs: 4, limit }),
        ...times(5, { rule: 16, ruleName: "datasets-key", outcome: "admitted", decidedBy: "lease", limit }),
        ...times(7, { rule: 14, ruleName: "exports-key", outcome: "denied", decidedBy: "deny-cache", limit }),
        { rule: 14, ruleName: "exports-key", outcome: "denied", decidedBy: "object", counterMs: 30, limit },
        // The counter object failed and the isolate's local window decided: an object call all the same.
        { rule: 12, ruleName: "runs-query-key", outcome: "admitted", decidedBy: "local-fallback", failed: true, counterMs: 1000, limit },
        // Exempt by an override: a decision with no counter at all.
        { rule: 12, ruleName: "runs-query-key", outcome: "exempt" },
      ],
      // Failing closed (503): a failure that decided nothing.
      [12],
    );
    expect(parseDecisionTotals(text)).toEqual({ decisions: 18, lease: 5, denyCache: 7, object: 5, failures: 2 });
  });

  it("reads a label value holding spaces, braces or escaped quotes", () => {
    const text = metricsFor(times(2, { rule: 7, ruleName: 'odd } name "x" 9', outcome: "admitted", decidedBy: "lease" }));
    expect(text).toContain('rule_name="odd } name \\"x\\" 9"');
    expect(parseDecisionTotals(text)).toEqual({ decisions: 2, lease: 2, denyCache: 0, object: 0, failures: 0 });
  });

  it("reads a gateway that has decided nothing yet as zeros", () => {
    expect(parseDecisionTotals(metricsFor([]))).toEqual(NO_DECISIONS);
  });

  it("refuses text that is not the gateway's metrics, or a value that is not a number", () => {
    expect(() => parseDecisionTotals('{"title":"Not Found"}')).toThrow(/not the gateway's metrics/);
    const broken = metricsFor([{ rule: 16, ruleName: "datasets-key", outcome: "admitted", decidedBy: "lease" }]).replace(
      /(tollgate_lease_answers_total\{[^\n]*\}) 1/,
      "$1 many",
    );
    expect(() => parseDecisionTotals(broken)).toThrow(/not a number in the gateway's metrics: tollgate_lease_answers_total/);
  });
});

describe("diffTotals", () => {
  it("gives what was decided between two scrapes", () => {
    const before = { decisions: 100, lease: 40, denyCache: 10, object: 50, failures: 1 };
    const after = { decisions: 1100, lease: 1010, denyCache: 10, object: 80, failures: 1 };
    expect(diffTotals(after, before)).toEqual({ decisions: 1000, lease: 970, denyCache: 0, object: 30, failures: 0 });
  });
});
