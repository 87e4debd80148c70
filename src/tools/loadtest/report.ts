// Pure: the HTML report, one self-contained page. Chart.js is inlined (its UMD build is passed in),
// the results are embedded as JSON, and nothing is fetched when the page opens.
import { formatWindow, type Percentiles, type RetryOutcome } from "./analysis.ts";
import type { LoadTestResult, RuleResult } from "./loadtest.ts";

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

/** JSON that can sit inside a <script> element. */
const scriptJson = (value: unknown) => JSON.stringify(value).replace(/</g, "\\u003c").replace(/\u2028/g, "\\u2028").replace(/\u2029/g, "\\u2029");

/** Drops the trailing source-map comment, so the inlined library never asks for a .map file. */
export const inlineableScript = (source: string) => source.replace(/\/\/# sourceMappingURL=\S+\s*$/, "").replace(/<\/script/gi, "<\\/script");

const num = (x: number | null | undefined, unit = "") => (x === null || x === undefined ? "–" : `${x}${unit}`);

function retryText(retry: RetryOutcome): string {
  switch (retry.status) {
    case "admitted":
      return `admitted on the first retry after Retry-After ${retry.retryAfterS} s` + (retry.overWaitMs !== null && retry.overWaitMs >= 5 ? ` (at least ${(retry.overWaitMs / 1000).toFixed(2)} s later than needed)` : "");
    case "refused":
      return `REFUSED on the first honoured retry: ${retry.detail ?? ""}`;
    case "error":
      return `error: ${retry.detail ?? ""}`;
    case "not-reached":
    case "skipped":
      return `not tested: ${retry.reason}`;
  }
}

function latencyRow(label: string, p: Percentiles): string {
  return `<tr><th>${label}</th><td>${p.count}</td><td>${num(p.p50)}</td><td>${num(p.p95)}</td><td>${num(p.p99)}</td></tr>`;
}

function ruleSection(r: RuleResult, timeScale: number): string {
  const f = r.figures;
  const badge = r.pass ? `<span class="badge pass">pass</span>` : `<span class="badge fail">FAIL</span>`;
  const failures = r.failures.length ? `<ul class="failures">${r.failures.map((x) => `<li>${escapeHtml(x)}</li>`).join("")}</ul>` : "";
  const facts: [string, string][] = [
    ["limit", `${r.limit.count} per ${r.limit.intervalS} s` + (timeScale !== 1 ? ` → ${r.limit.count} per ${formatWindow(r.windowMs)} at time scale ${timeScale}` : "")],
    ["traffic", `${escapeHtml(r.request.method)} ${escapeHtml(r.request.path)} by ${r.identity}` + (r.sharedIdentity ? " (one counter for all clients)" : " (fresh identity per client)")],
    ["steady client", `${f.offeredRate}/s offered of ${f.intendedRate}/s intended` + (f.steadyUtilization !== null ? `; admitted ${Math.round(f.steadyUtilization * 100)} % of count per window` : "")],
    ["bursts", `${r.burstSize} requests at once, every ${formatWindow((2 * r.windowMs) / 3)}`],
    ["limit reached", f.limitReached ? "yes" : "no (the machine could not offer count within one window)"],
    ["max in one window", `${f.maxInWindow.admitted} of ${r.limit.count} (proven from send/receive times)`],
    ["RateLimit header", `${f.header.exposure} of ${r.limit.count} (proven admissions in the gateway's window + r it offered)`],
    ["under-admission", f.underAdmission.earlyDenials ? `${f.underAdmission.earlyDenials} denial(s) with room left, at most ${f.underAdmission.maxFreeAtDenial} unit(s)` : "none proven"],
    ["retry client", escapeHtml(retryText(f.retry))],
    ["Retry-After", f.retryAfter.min === null ? "–" : `${f.retryAfter.min}–${f.retryAfter.max} s` + (f.retryAfter.outOfRange ? `, ${f.retryAfter.outOfRange} out of range` : "")],
    ["answers", `${f.sent} sent: ${f.admitted} admitted (${f.admittedPerS}/s), ${f.denied} denied (${f.deniedPerS}/s), ${f.errors} errors`],
  ];
  return `
<section class="rule ${r.pass ? "" : "failed"}" id="rule-${r.rule}">
  <h2>Row ${r.rule} · ${escapeHtml(r.name)} ${badge}</h2>
  <p class="sub">${escapeHtml(r.category)} · starts at ${r.schedule.startS} s, runs ${r.schedule.durationS} s</p>
  ${failures}
  <div class="cols">
    <div class="chart"><canvas id="chart-${r.rule}" data-rule="${r.rule}" role="img" aria-label="admitted and denied requests over time against the limit for row ${r.rule}"></canvas></div>
    <div class="facts">
      <table class="kv">${facts.map(([k, v]) => `<tr><th>${k}</th><td>${v}</td></tr>`).join("")}</table>
      <table class="lat"><tr><th>latency ms</th><th>n</th><th>p50</th><th>p95</th><th>p99</th></tr>
        ${latencyRow("admitted", f.latency.admitted)}${latencyRow("denied", f.latency.denied)}</table>
    </div>
  </div>
</section>`;
}

function summaryTable(result: LoadTestResult): string {
  const rows = result.rules
    .map((r) => {
      const f = r.figures;
      return `<tr class="${r.pass ? "" : "failed"}"><td><a href="#rule-${r.rule}">${r.rule}</a></td><td>${escapeHtml(r.name)}</td><td>${r.limit.count}/${r.limit.intervalS} s</td><td>${formatWindow(r.windowMs)}</td>
<td>${f.offeredRate}/${f.intendedRate}</td><td>${f.limitReached ? "yes" : "no"}</td><td>${f.maxInWindow.admitted}/${r.limit.count}</td><td>${f.header.exposure}</td>
<td>${f.underAdmission.maxFreeAtDenial}</td><td>${f.retry.status === "admitted" ? `ok ${f.retry.retryAfterS} s` : escapeHtml(f.retry.status)}</td>
<td>${num(f.latency.admitted.p50)}/${num(f.latency.admitted.p99)}</td><td>${num(f.latency.denied.p50)}/${num(f.latency.denied.p99)}</td><td>${f.errors}</td>
<td>${r.pass ? `<span class="badge pass">pass</span>` : `<span class="badge fail">FAIL</span>`}</td></tr>`;
    })
    .join("\n");
  return `<div class="scroll"><table class="summary"><thead><tr><th>row</th><th>rule</th><th>limit</th><th>window</th><th>offered/intended /s</th><th>reached</th><th>max in window</th><th>header</th><th>under</th><th>retry</th><th>admit p50/p99 ms</th><th>deny p50/p99 ms</th><th>err</th><th>result</th></tr></thead><tbody>${rows}</tbody></table></div>`;
}

/** The data the page's script draws from: only what the charts need. */
function chartData(result: LoadTestResult) {
  return result.rules.map((r) => ({
    rule: r.rule,
    count: r.limit.count,
    window: formatWindow(r.windowMs),
    durationS: r.schedule.durationS,
    t: r.series.t,
    lines: r.series.lines,
    proven: { atS: Math.max(0, (r.figures.maxInWindow.atMs / 1000) - r.schedule.startS), admitted: r.figures.maxInWindow.admitted },
  }));
}

const CHART_SCRIPT = `
(function () {
  var data = JSON.parse(document.getElementById("loadtest-data").textContent);
  var colors = { steady: "#1f7a3a", burst: "#2f6fb0" };
  var denied = { steady: "#c0392b", burst: "#d98324" };
  var made = 0;
  data.forEach(function (rule) {
    var canvas = document.getElementById("chart-" + rule.rule);
    if (!canvas) return;
    var datasets = [];
    rule.lines.forEach(function (line) {
      datasets.push({ label: line.client + " admitted", data: rule.t.map(function (t, i) { return { x: t, y: line.admitted[i] }; }),
        borderColor: colors[line.client], backgroundColor: colors[line.client], borderWidth: 2, pointRadius: 0, stepped: true });
      datasets.push({ label: line.client + " denied", data: rule.t.map(function (t, i) { return { x: t, y: line.denied[i] }; }),
        borderColor: denied[line.client], backgroundColor: denied[line.client], borderWidth: 1.5, borderDash: [5, 3], pointRadius: 0, stepped: true });
    });
    datasets.push({ label: "limit (" + rule.count + " per " + rule.window + ")", data: [{ x: 0, y: rule.count }, { x: rule.durationS, y: rule.count }],
      borderColor: "#111", borderWidth: 2, borderDash: [8, 4], pointRadius: 0 });
    datasets.push({ label: "most proven in one window", type: "scatter", data: [{ x: rule.proven.atS, y: rule.proven.admitted }],
      borderColor: "#7b2cbf", backgroundColor: "#7b2cbf", pointRadius: 5, pointStyle: "rectRot" });
    new Chart(canvas, {
      type: "line",
      data: { datasets: datasets },
      options: {
        animation: false, responsive: true, maintainAspectRatio: false, parsing: true, normalized: true,
        interaction: { mode: "nearest", intersect: false },
        scales: {
          x: { type: "linear", min: 0, max: rule.durationS, title: { display: true, text: "seconds since the rule started" } },
          y: { beginAtZero: true, suggestedMax: rule.count * 1.2, title: { display: true, text: "answers in the trailing " + rule.window } }
        },
        plugins: { legend: { position: "bottom", labels: { boxWidth: 14, font: { size: 11 } } } }
      }
    });
    made++;
  });
  window.__loadtestCharts = made;
  document.body.setAttribute("data-charts", String(made));
})();`;

export function renderReport(result: LoadTestResult, chartJs: string): string {
  const failed = result.rules.filter((r) => !r.pass).length;
  const reached = result.rules.filter((r) => r.figures.limitReached).length;
  const title = `tollgate load test · ${result.region} · time scale ${result.timeScale}`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>
  :root { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1d232a; background: #f4f6f8; }
  body { margin: 0 auto; max-width: 1280px; padding: 24px; }
  h1 { margin: 0 0 4px; font-size: 24px; }
  h2 { font-size: 17px; margin: 0 0 2px; }
  .sub { color: #5b6670; margin: 0 0 10px; font-size: 13px; }
  .badge { display: inline-block; padding: 1px 8px; border-radius: 10px; font-size: 12px; font-weight: 600; vertical-align: middle; }
  .badge.pass { background: #d6f2de; color: #14592a; }
  .badge.fail { background: #fbd9d5; color: #8e1b10; }
  .verdict { font-size: 20px; font-weight: 700; margin: 12px 0; }
  .verdict.pass { color: #14592a; } .verdict.fail { color: #8e1b10; }
  .meta, .notes { font-size: 13px; color: #38424c; }
  .notes li { margin: 2px 0; }
  table { border-collapse: collapse; font-size: 12.5px; }
  .scroll { overflow-x: auto; margin: 12px 0 24px; }
  table.summary { width: 100%; background: #fff; box-shadow: 0 1px 2px #0001; font-size: 12px; }
  table.summary th, table.summary td { padding: 3px 6px; border-bottom: 1px solid #e3e7eb; text-align: right; white-space: nowrap; }
  table.summary th:nth-child(2), table.summary td:nth-child(2) { text-align: left; }
  tr.failed td { background: #fff1ef; }
  section.rule { background: #fff; border-radius: 8px; box-shadow: 0 1px 3px #0002; padding: 14px 16px; margin: 0 0 18px; }
  section.rule.failed { border-left: 5px solid #c0392b; }
  .cols { display: grid; grid-template-columns: minmax(0, 3fr) minmax(0, 2fr); gap: 16px; align-items: start; }
  .chart { position: relative; height: 300px; }
  table.kv th { text-align: left; color: #5b6670; font-weight: 500; padding: 2px 10px 2px 0; vertical-align: top; white-space: nowrap; }
  table.kv td { padding: 2px 0; }
  table.lat { margin-top: 10px; }
  table.lat th, table.lat td { padding: 2px 8px; border-bottom: 1px solid #eef1f3; text-align: right; }
  table.lat th:first-child { text-align: left; }
  ul.failures { color: #8e1b10; font-weight: 600; margin: 6px 0 10px; }
  @media (max-width: 900px) { .cols { grid-template-columns: 1fr; } }
</style>
</head>
<body data-charts="0">
<h1>${escapeHtml(title)}</h1>
<div class="meta">${escapeHtml(result.gateway.kind === "local" ? "local gateway started by the tool" : `target ${result.gateway.url}`)} ·
limiter ${escapeHtml(result.algorithm)} · started ${escapeHtml(result.startedAt)} · traffic ${result.trafficTimeS} s · wall time ${result.wallTimeS} s</div>
<div class="verdict ${result.pass ? "pass" : "fail"}">${result.pass ? "PASS" : "FAIL"}: ${result.rules.length - failed} of ${result.rules.length} rule(s) held · limit reached in ${reached}</div>
<ul class="notes">${result.notes.map((n) => `<li>${escapeHtml(n)}</li>`).join("")}
<li>A rule holds when no set of admitted answers sent and received within one window exceeds count, the gateway's RateLimit <code>r</code> never offers more than count minus the admissions already proven in its window, its retry client is admitted on the first retry after Retry-After, and no answer is an error.
Charts count answers by receipt time in a trailing window (display only); the square marks the largest set proven inside one window.</li></ul>
${summaryTable(result)}
${result.rules.map((r) => ruleSection(r, result.timeScale)).join("\n")}
<script>${inlineableScript(chartJs)}</script>
<script type="application/json" id="loadtest-data">${scriptJson(chartData(result))}</script>
<script>${CHART_SCRIPT}</script>
</body>
</html>
`;
}
