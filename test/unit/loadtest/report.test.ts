import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { inlineableScript, renderReport } from "../../../src/tools/loadtest/report.ts";
import { renderSummary } from "../../../src/tools/loadtest/summary.ts";
import { cannedResult } from "./fixtures.ts";

const chartJs = () => readFile(join(dirname(createRequire(import.meta.url).resolve("chart.js")), "chart.umd.min.js"), "utf8");

describe("canned results", () => {
  it("come out as a pass, a caught fixed window, and a limit out of reach", () => {
    const result = cannedResult();
    expect(result.rules.map((r) => [r.rule, r.pass, r.figures.limitReached])).toEqual([
      [12, true, true],
      [5, false, true],
      [11, true, false],
    ]);
  });
});

describe("renderSummary", () => {
  it("prints a row per rule with its verdict, the failures and the totals", () => {
    const text = renderSummary(cannedResult());
    expect(text).toMatch(/│\s+12 │ runs-query-key\s+│\s+15\/10 s │\s+167 ms │.*│ pass\s+│/);
    expect(text).toMatch(/│\s+5 │ repos-key .*│ FAIL\s+│/);
    expect(text).toMatch(/FAIL row 5 repos-key: \d+ requests admitted within one window of 1 s \(limit 100\)/);
    expect(text).toContain("2 of 3 rule(s) held; limit reached in 2 of 3");
    expect(text.trim().split("\n").at(-1)).toBe("FAIL");
    // No colour codes: the output is pasted into docs and CI logs.
    expect(text).not.toMatch(/\u001b\[/);
  });
});

describe("renderReport", () => {
  it("is one self-contained page: Chart.js inlined, no external resource", async () => {
    const html = renderReport(cannedResult(), await chartJs());
    expect(html).toContain("Chart.js v4.6.1");
    expect(html).not.toMatch(/sourceMappingURL/);
    expect(html).not.toMatch(/<(script|link|img)[^>]+(src|href)=["']?https?:/i);
    expect(html.match(/<canvas /g)).toHaveLength(3);
    expect(html).toContain('id="chart-5"');
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
