import { describe, expect, it } from "vitest";
import { analyze, type Observation } from "../../../../bench/accuracy/analysis.ts";
import { jsonReport, latencies, renderReport, verdictLine } from "../../../../bench/accuracy/report.ts";
import type { AccuracyRun, ScenarioResult } from "../../../../bench/accuracy/run.ts";
import { targetFor } from "../../../../bench/accuracy/target.ts";
import { admitted, refused } from "./observations.ts";

const limit = { count: 2, intervalMs: 1000 };

function result(isolates: number, observations: Observation[], problems: string[]): ScenarioResult {
  const timeline = { limit, observations, isolates };
  return { scenario: "sequential", isolates, apiKey: "k", figures: analyze(timeline), problems, notes: [], durationMs: 1, timeline };
}

const run: AccuracyRun = {
  target: targetFor(5),
  limit,
  timeScale: 60,
  counterTimeoutMs: 250,
  overridesRefreshMs: 100,
  isolation: { 1: "one isolate", 4: "4 workers" },
  results: [result(1, [admitted(0), admitted(10), refused(20)], []), result(4, [admitted(0), refused(10)], ["1 early 429(s)"])],
};

describe("report", () => {
  it("says PASS only where every K met the expectation, and names the K that did not", () => {
    expect(verdictLine({ ...run, results: [run.results[0]!] }, "sequential")).toBe("sequential: PASS at K=1");
    expect(verdictLine(run, "sequential")).toBe("sequential: FAIL at K=4 of 1,4: K=4 1 early 429(s)");
  });

  it("prints a table per scenario with a row per K, then the verdicts", () => {
    const text = renderReport(run);
    expect(text).toMatch(/│ 1 +│ 3 +│ 2\/2 +│ 2 +│ 1 +│ #3 \(RA 1 s\)/);
    expect(text).toMatch(/│ 4 +│ 2 +│ 1\/2 +│ 1 +│ 1 +│ #2 \(RA 1 s\)/);
    expect(text).toMatch(/verdicts:\n {2}sequential: FAIL at K=4/);
  });

  it("ends with the run's verdict, PASS only when every scenario met its expectation at every K", () => {
    expect(renderReport(run).split("\n").at(-1)).toBe("FAIL");
    expect(
      renderReport({ ...run, results: [run.results[0]!] })
        .split("\n")
        .at(-1),
    ).toBe("PASS");
    expect((jsonReport(run) as { verdict: string }).verdict).toBe("FAIL");
  });
});

describe("latency columns", () => {
  it("p50/p99 of the answered requests, client-observed; a request with no answer is left out (nearest rank over 2, 10, 40 ms)", () => {
    const observations = [admitted(0, 10), admitted(20, 60), refused(100, 102), { isolate: 0, sentAt: 200, receivedAt: 5000, status: 0 }];
    expect(latencies(result(1, observations, []))).toEqual({ p50: "10", p99: "40" });
  });

  it("the header names the round trip the run injected", () => {
    expect(renderReport(run)).toContain("round trip on every isolate-to-object call: none");
    expect(renderReport({ ...run, rtt: { kind: "lognormal", median: 40, sigma: 0.3 } })).toContain(
      "round trip on every isolate-to-object call: lognormal 40 ms, σ 0.3",
    );
  });
});
