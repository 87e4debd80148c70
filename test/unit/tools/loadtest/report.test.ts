import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { hostedApiTable } from "../../../../src/core/rules/hosted-api.ts";
import type { LoadTestResult } from "../../../../tools/loadtest/loadtest.ts";
import { describeOutcome, OUTCOMES, verdictLine } from "../../../../tools/loadtest/outcome.ts";
import { blindStretches, CHART_SCRIPT, chartData } from "../../../../tools/loadtest/report-charts.ts";
import { heldWithUnderAdmission, reachedText, shareWithoutUnderAdmission } from "../../../../tools/loadtest/reconcile.ts";
import { inlineableScript, renderReport } from "../../../../tools/loadtest/report.ts";
import { renderSummary, SUMMARY_WIDTH } from "../../../../tools/loadtest/summary.ts";
import { cannedResult } from "./fixtures.ts";

const chartJs = () => readFile(join(dirname(createRequire(import.meta.url).resolve("chart.js")), "chart.umd.min.js"), "utf8");

/** The summary with wrapped lines joined again. */
const unwrap = (text: string) => text.replace(/\n {4,}/g, " ");

/** The canned run stretched to the widest table this rule table can give: every row, the longest names, large figures. */
function widestResult(): LoadTestResult {
  const result = cannedResult();
  const template = result.rules[1]!; // the failed one: every word and figure present
  const rules = hostedApiTable.rules.map((rule) => ({
    ...template,
    rule: rule.id,
    name: rule.name,
    limit: { count: rule.limits.us.count, intervalS: rule.limits.us.interval },
    figures: { ...template.figures, errors: 99_999, maxInWindow: { admitted: 123_456, atMs: 0 }, header: { ...template.figures.header, exposure: 123_456 } },
  }));
  return { ...result, gateway: { kind: "target", url: "https://tollgate-us.example.com/with/a/rather/long/base/path/that/goes/on/" }, rules };
}

describe("canned results", () => {
  it("come out as every outcome the analysis reaches without a broken network", () => {
    const result = cannedResult();
    expect(result.rules.map((r) => [r.rule, r.judgement.outcome, r.judgement.checks.retry.outcome, r.figures.limitReached])).toEqual([
      [12, "held", "held", true],
      [5, "failed", "skipped", true],
      [11, "unjudged", "skipped", false],
      [13, "unjudged", "skipped", true],
    ]);
    expect(result.rules.find((r) => r.rule === 13)!.series.hiddenTotal).toBeGreaterThan(0);
  });
});

describe("renderSummary", () => {
  it("prints a row per rule with its words, each rule's verdict line with its reason, and the totals", () => {
    const text = unwrap(renderSummary(cannedResult()));
    expect(text).toMatch(/│\s+12 │ runs-query-key\s+│\s+15\/10 s │\s+60 │\s+15 │\s+15 │ held\s+│\s+0 │ held\s+│/);
    expect(text).toMatch(/│\s+5 │ repos-key .*│ skipped\s+│\s+0 │ failed\s+│/);
    expect(text).toContain("row 12 runs-query-key: at most 15 admitted in any 10 s window, limit 15: held\n");
    expect(text).toContain("  retry: admitted on its first retry after Retry-After 1 s: held\n");
    expect(text).toMatch(
      /row 5 repos-key: \d+ admitted in one 60 s window, limit 100: failed, because all \d+ were sent and answered between [\d.]+ s and [\d.]+ s\n/,
    );
    expect(text).toMatch(/row 11 runs-multipart-key: at most \d+ admitted in any 10 s window, limit 6000: unjudged, because the limit was never reached/);
    expect(text).toContain("  retry: not run: skipped, because not simulated in this canned run");
    expect(text).toContain("4 rule(s): 1 held, 1 failed, 2 unjudged; limit reached in 3");
    expect(text.trim().split("\n").at(-1)).toBe("FAIL");
    // No colour codes: the output is pasted into docs and CI logs.
    expect(text).not.toMatch(/\u001b\[/);
  });

  it(`fits ${SUMMARY_WIDTH} columns, even for every row of the table with large figures and a long target`, () => {
    for (const result of [cannedResult(), widestResult()]) {
      const long = renderSummary(result)
        .split("\n")
        .filter((line) => [...line].length > SUMMARY_WIDTH);
      expect(long).toEqual([]);
    }
  });

  it("with --wide, adds the rates, window, under-admission and latency columns", () => {
    const text = renderSummary(cannedResult(), { wide: true });
    expect(text).toMatch(
      /│ row │ rule\s+│\s+limit │ scale │ window │ offered\/intended \/s │ reached │ proven │ header │ under │ retry\s+│ admit p50\/p99 ms │ deny p50\/p99 ms │ err │ outcome\s+│/,
    );
    expect(Math.max(...text.split("\n").map((l) => l.length))).toBeGreaterThan(SUMMARY_WIDTH);
    expect(renderSummary(cannedResult())).not.toMatch(/offered\/intended|p50\/p99/);
  });
});

describe("one word per outcome", () => {
  it("is the same in the terminal, the JSON and the HTML, always with its reason", () => {
    const result = cannedResult();
    const text = renderSummary(result);
    const json = JSON.parse(JSON.stringify(result)) as LoadTestResult;
    const html = renderReport(result, "/* Chart.js */");
    for (const r of json.rules) {
      const { word, reason } = describeOutcome(r.judgement);
      expect(OUTCOMES).toContain(word);
      expect(reason.length).toBeGreaterThan(10);
      const row = text.split("\n").find((l) => new RegExp(`^│\\s+${r.rule} │`).test(l))!;
      expect(
        row
          .trim()
          .split(/\s*│\s*/)
          .at(-2),
      ).toBe(word);
      expect(row).toContain(` ${r.judgement.checks.retry.outcome} `);
      // The verdict line, wrapped, in the terminal; as the card's first line in the HTML.
      expect(unwrap(text)).toContain(`row ${r.rule} ${r.name}: ${verdictLine(r.judgement)}`);
      expect(html).toContain(`<section class="rule ${word}" id="rule-${r.rule}" data-outcome="${word}">`);
      for (const check of Object.values(r.judgement.checks)) expect(OUTCOMES).toContain(check.outcome);
    }
    // The words that used to name one outcome twice ("n/a" and "not-reached"), or a pass without a reason, are gone.
    for (const old of ["n/a", "not-reached", "not tested:", ">pass<", "│ pass", "│ skip "]) {
      expect((text + html).includes(old), old).toBe(false);
    }
  });
});

interface DrawnDataset {
  label: string;
  order?: number;
  type?: string;
  data: { x: number; y: number }[];
}

/** Runs the page's chart script against a stand-in Chart that records what each chart was given. */
function drawnCharts(result: LoadTestResult): Map<string, { datasets: DrawnDataset[] }> {
  const drawn = new Map<string, { datasets: DrawnDataset[] }>();
  const elements = new Map<string, unknown>([["loadtest-data", { textContent: JSON.stringify(chartData(result)) }]]);
  for (const r of result.rules) for (const id of [`chart-${r.rule}`, `denials-${r.rule}`]) elements.set(id, { id });
  const document = { getElementById: (id: string) => elements.get(id) ?? null, body: { setAttribute: () => undefined } };
  function Chart(canvas: { id: string }, config: { data: { datasets: DrawnDataset[] } }) {
    drawn.set(canvas.id, config.data);
  }
  new Function("document", "window", "Chart", CHART_SCRIPT)(document, {}, Chart);
  return drawn;
}

describe("renderReport", () => {
  it("draws the limit over the steps, across the whole time axis from its first point to its last", () => {
    const result = cannedResult();
    const drawn = drawnCharts(result);
    for (const r of result.rules) {
      const { datasets } = drawn.get(`chart-${r.rule}`)!;
      const limit = datasets.find((d) => d.label.startsWith(`limit: ${r.limit.count} per`))!;
      expect(limit, `row ${r.rule}`).toBeDefined();
      // Chart.js draws datasets from the highest order to the lowest (0 unless set): the limit's is the lowest of all.
      for (const d of datasets.filter((d) => d !== limit)) expect(limit.order ?? 0, `${d.label} under the limit`).toBeLessThan(d.order ?? 0);
      expect(limit.data).toEqual([
        { x: r.series.t[0], y: r.limit.count },
        { x: r.series.t.at(-1), y: r.limit.count },
      ]);
      expect(r.series.t[0]).toBe(0);
      const steps = datasets.filter((d) => d.label.startsWith("proven in one window"));
      expect(steps.length).toBeGreaterThan(0);
      for (const d of steps) {
        expect(d.data[0]!.x).toBe(limit.data[0]!.x);
        expect(d.data.at(-1)!.x).toBe(limit.data[1]!.x);
      }
    }
  });

  it("is one self-contained page: Chart.js inlined, no external resource", async () => {
    const html = renderReport(cannedResult(), await chartJs());
    expect(html).toContain("Chart.js v4.6.1");
    expect(html).not.toMatch(/sourceMappingURL/);
    expect(html).not.toMatch(/<(script|link|img)[^>]+(src|href)=["']?https?:/i);
    // Two panels per rule: what the verdict is computed from, and the denials on their own scale.
    expect(html.match(/<canvas id="chart-/g)).toHaveLength(4);
    expect(html.match(/<canvas id="denials-/g)).toHaveLength(4);
  });

  it("opens each card with the verdict line, the reason under it", async () => {
    const html = renderReport(cannedResult(), "/* chart */");
    expect(html).toContain(`<p class="verdict-line">at most 15 admitted in any 10 s window, limit 15: <span class="word held"`);
    expect(html).toMatch(
      /<p class="verdict-line">at most \d+ admitted in any provable 10 s window, limit 15: <span class="word unjudged"[^>]*>unjudged<\/span><\/p>\s*<p class="why">because the gateway refused requests, but \d+ of \d+ admissions took 162 ms or longer to answer/,
    );
    // Row 13's slow answers: the caption says where the check is blind and why.
    expect(html).toMatch(/Shaded:<\/span> \d+ admission\(s\) took a window or more to answer/);
  });

  it("embeds, per rule, the proven series the verdict is computed from, and where windows are blind", () => {
    const result = cannedResult();
    for (const [r, d] of result.rules.map((r, i) => [r, chartData(result)[i]!] as const)) {
      const peak = Math.max(0, ...d.counters.flatMap((c) => c.proven));
      expect(peak).toBe(r.figures.maxInWindow.admitted);
      if (r.judgement.outcome === "held") expect(peak).toBe(r.limit.count);
      expect(d.marker).toMatchObject({ y: r.figures.maxInWindow.admitted });
      expect(d.blind.length > 0).toBe(r.series.hiddenTotal > 0);
    }
    expect(blindStretches([0, 1, 2, 3, 4], [0, 2, 1, 0])).toEqual([[1, 3]]);
  });

  it("says in one line why a small steady share and 'under-admission: none proven' are both true, wherever they meet", () => {
    const result = cannedResult();
    const html = renderReport(result, "/* chart */");
    const card = (rule: number) => html.slice(html.indexOf(`id="rule-${rule}"`), html.indexOf("</section>", html.indexOf(`id="rule-${rule}"`)));
    // Row 11: 200/s offered against 6000 per 167 ms, the client's own cap.
    const row11 = result.rules.find((r) => r.rule === 11)!;
    expect(row11.figures.steadyUtilization).toBeLessThan(0.05);
    expect(card(11)).toMatch(/admitted \d+ % of count per window/);
    expect(card(11)).toContain("<th>under-admission</th><td>none proven</td>");
    expect(card(11)).toMatch(
      /<span class="reconcile">both true: the steady client sent only about 33\.3 requests per 167 ms window \(200\/s, capped from the 72000\/s asked\), 1 % of the count: 1 % is all it could get, and proves nothing against the gateway<\/span>/,
    );
    // Where the share is full the two statements do not meet, and no line is added.
    for (const r of result.rules.filter((r) => r.rule !== 11)) {
      expect(r.figures.steadyUtilization).toBeGreaterThan(0.95);
      expect(card(r.rule)).not.toContain('class="reconcile"');
    }
  });

  it("explains the share by what kept it low: the plan, refusals that were not early, or nothing refused", () => {
    const base = cannedResult().rules.find((r) => r.rule === 12)!;
    const with_ = (figures: Partial<typeof base.figures>) => ({ ...base, figures: { ...base.figures, ...figures } });
    // Enough offered (180/s over 167 ms is 30 per window, count 15), refused, none early.
    expect(shareWithoutUnderAdmission(with_({ steadyUtilization: 0.5 }))).toMatch(
      /^both true: the steady client got 50 % of the count because the gateway refused some of its requests, but every refusal came when/,
    );
    expect(shareWithoutUnderAdmission(with_({ steadyUtilization: 0.5, denied: 0, limitReached: false }))).toMatch(/^both true: the gateway refused nothing/);
    // Its plan, not a cap: 45/s over 167 ms is 7.5 per window, half of 15.
    expect(shareWithoutUnderAdmission(with_({ steadyUtilization: 0.5, offeredRate: 45, intendedRate: 45 }))).toBe(
      "both true: the steady client sent only about 7.5 requests per 167 ms window (45/s, its plan), 50 % of the count: 50 % is all it could get, and proves nothing against the gateway",
    );
    // Under-admission proven: the two statements agree, nothing to explain.
    expect(shareWithoutUnderAdmission(with_({ steadyUtilization: 0.5, underAdmission: { earlyDenials: 2, maxFreeAtDenial: 3 } }))).toBeUndefined();
    expect(shareWithoutUnderAdmission(with_({ steadyUtilization: null }))).toBeUndefined();
    // Held beside proven under-admission: stricter than the limit, not over it.
    const strict = with_({ underAdmission: { earlyDenials: 2, maxFreeAtDenial: 3 } });
    expect(heldWithUnderAdmission(strict)).toBe(
      "both true: held means no window admitted more than the count; these 2 refusal(s) came with up to 3 unit(s) provably free, so the gateway was stricter than its limit there, which the verdict does not judge",
    );
    expect(renderReport({ ...cannedResult(), rules: [strict] }, "/* chart */")).toContain(`<span class="reconcile">${heldWithUnderAdmission(strict)}</span>`);
    expect(heldWithUnderAdmission(base)).toBeUndefined();
    // "limit reached: no" beside a full window: said to be exact, not over.
    expect(reachedText(with_({ limitReached: false, denied: 0 }))).toBe(
      "no (it refused nothing; one window was filled exactly to the limit, 15, and none beyond)",
    );
    expect(reachedText(base)).toBe("yes (the gateway refused)");
  });

  it("escapes text and keeps the embedded data inert", async () => {
    const result = cannedResult();
    const html = renderReport({ ...result, rules: result.rules.map((r) => ({ ...r, name: "</script><b>x" })) }, "/* chart */");
    expect(html).not.toContain("</script><b>x");
    expect(html).toContain("&lt;/script&gt;&lt;b&gt;x");
    expect(html).toContain("Canned results &lt;for a test&gt; &amp; nothing else.");
    expect(inlineableScript("a</script>b\n//# sourceMappingURL=x.map\n")).toBe("a<\\/script>b\n");
  });
});
