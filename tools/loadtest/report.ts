// Pure: the HTML report, one self-contained page. Chart.js is inlined (its UMD build is passed in),
// the results are embedded as JSON, and nothing is fetched when the page opens. Every rule's card
// opens with its verdict line; its charts (report-charts.ts) plot what that verdict is computed from.
import { formatWindow } from "./answer.ts";
import type { Percentiles } from "./analysis.ts";
import type { LoadTestResult, RuleResult } from "./loadtest.ts";
import { describeOutcome, OUTCOME_MEANINGS, OUTCOMES, tally, type Judgement } from "./outcome.ts";
import { cardId, CHART_SCRIPT, chartData, counterLabel, provenMarker } from "./report-charts.ts";
import { heldWithUnderAdmission, reachedText, shareWithoutUnderAdmission } from "./reconcile.ts";
import type { RetryJudgement } from "./retry.ts";

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

/** JSON that can sit inside a <script> element. */
const scriptJson = (value: unknown) =>
  JSON.stringify(value)
    .replace(/</g, "\\u003c")
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029");

/** Drops the trailing source-map comment, so the inlined library never asks for a .map file. */
export const inlineableScript = (source: string) => source.replace(/\/\/# sourceMappingURL=\S+\s*$/, "").replace(/<\/script/gi, "<\\/script");

const num = (x: number | null | undefined, unit = "") => (x === null || x === undefined ? "–" : `${x}${unit}`);

/** The outcome's word, styled, with its reason on hover (the reason is also written out beside it). */
const word = (j: Judgement) => {
  const { word, reason } = describeOutcome(j);
  return `<span class="word ${word}" title="${escapeHtml(reason)}">${word}</span>`;
};

/** The verdict line as text (its textContent is outcome.ts's verdictLine), the word emphasized. */
const line = (j: Judgement) => `${escapeHtml(j.finding)}: ${word(j)}` + (j.why ? `, because ${escapeHtml(j.why)}` : "");

function retryNote(retry: RetryJudgement): string {
  return retry.overWaitMs !== undefined && retry.overWaitMs !== null && retry.overWaitMs >= 5
    ? ` (at least ${(retry.overWaitMs / 1000).toFixed(2)} s later than needed)`
    : "";
}

/** When answers kept coming well after the rule's slot, its charts run on: say so where the slot is given. */
function lateNote(r: RuleResult): string {
  const last = r.series.lastReceiptS;
  return last > r.schedule.durationS * 1.25 ? ` (answers until ${last.toFixed(1)} s: the run fell behind its plan)` : "";
}

function latencyRow(label: string, p: Percentiles): string {
  return `<tr><th>${label}</th><td>${p.count}</td><td>${num(p.p50)}</td><td>${num(p.p95)}</td><td>${num(p.p99)}</td></tr>`;
}

/** Under the main chart: what it plots, where the verdict's figure is, and why shaded stretches are blind. */
function caption(r: RuleResult): string {
  const s = r.series;
  const mark = provenMarker(r);
  const parts = [
    `Each step: the most admissions proven inside one ${formatWindow(r.windowMs)} window ending there (sent at or after its start, answered before its end), per counter. ` +
      `The verdict compares the highest step with the limit: ${mark.y} of ${r.limit.count}` +
      (mark.y > 0 ? `, window ending at ${mark.x} s${mark.counter ? ` (${mark.counter})` : ""}.` : "."),
  ];
  if (s.hiddenTotal > 0) {
    parts.push(
      `<span class="blind">Shaded:</span> ${s.hiddenTotal} admission(s) took a window or more to answer (slowest ${num(s.hiddenMaxLatencyMs)} ms). ` +
        `When the gateway decided them is known only to within more than a window, so no window can hold them and the check is blind to them wherever they may lie.`,
    );
  }
  return `<p class="caption">${parts.join(" ")}</p>`;
}

function ruleSection(r: RuleResult, regions: number): string {
  const id = cardId(r, regions);
  const timeScale = r.timeScale;
  const f = r.figures;
  const j = r.judgement;
  const checks: [string, Judgement][] = [
    ["window check", j.checks.window],
    ["RateLimit check", j.checks.header],
    ["retry client", j.checks.retry],
  ];
  const both = [shareWithoutUnderAdmission(r), heldWithUnderAdmission(r)].filter((x): x is string => x !== undefined);
  const facts: [string, string][] = [
    [
      "limit",
      `${r.limit.count} per ${r.limit.intervalS} s (${r.region})` +
        (timeScale !== 1 ? ` → ${r.limit.count} per ${formatWindow(r.windowMs)} at time scale ${timeScale}` : ""),
    ],
    ["time scale", escapeHtml(r.scaleWhy)],
    [
      "traffic",
      `${escapeHtml(r.request.method)} ${escapeHtml(r.request.path)} by ${r.identity}` +
        (r.sharedIdentity ? " (one counter for all clients)" : " (fresh identity per client)"),
    ],
    [
      "steady client",
      `${f.offeredRate}/s offered of ${f.intendedRate}/s intended` +
        (f.steadyUtilization !== null ? `; admitted ${Math.round(f.steadyUtilization * 100)} % of count per window` : ""),
    ],
    ["bursts", `${r.burstSize} requests at once, every ${formatWindow((2 * r.windowMs) / 3)}`],
    ["limit reached", reachedText(r)],
    ["most in one window", `${f.maxInWindow.admitted} of ${r.limit.count} (proven from send and receipt times)`],
    ["RateLimit check", `${f.header.exposure} of ${r.limit.count} (proven admissions in the gateway's window + r it offered)`],
    [
      "under-admission",
      f.underAdmission.earlyDenials
        ? `${f.underAdmission.earlyDenials} denial(s) with room left, at most ${f.underAdmission.maxFreeAtDenial} unit(s)`
        : "none proven",
    ],
    // Statements that read as contradictions beside it (reconcile.ts): one line each says why both hold.
    ...both.map((b) => ["", `<span class="reconcile">${escapeHtml(b)}</span>`] as [string, string]),
    ...(r.secondTry
      ? [
          [
            "second try",
            escapeHtml(
              `the steady client again, on a fresh counter, from ${r.secondTry.startS} s for ${r.secondTry.durationS} s; the first try proved ${r.secondTry.first}`,
            ),
          ] as [string, string],
        ]
      : []),
    ["retry client", `${j.checks.retry.outcome}${escapeHtml(retryNote(j.checks.retry))}`],
    [
      "Retry-After",
      f.retryAfter.min === null
        ? "–"
        : `${f.retryAfter.min}–${f.retryAfter.max} s` + (f.retryAfter.outOfRange ? `, ${f.retryAfter.outOfRange} out of range` : ""),
    ],
    ["answers", `${f.sent} sent: ${f.admitted} admitted (${f.admittedPerS}/s), ${f.denied} denied (${f.deniedPerS}/s), ${f.errors} errors`],
    ...(f.errorKinds.length ? [["errors", escapeHtml(f.errorKinds.map((e) => `${e.error} ×${e.count}`).join("; "))] as [string, string]] : []),
  ];
  return `
<section class="rule ${j.outcome}" id="rule-${id}" data-outcome="${j.outcome}">
  <h2>Row ${r.rule} · ${escapeHtml(r.name)}${regions > 1 ? ` · ${r.region}` : ""} <span class="badge ${j.outcome}">${j.outcome}</span></h2>
  <p class="sub">${escapeHtml(r.category)} · ${escapeHtml(r.request.method)} ${escapeHtml(r.request.path)} · starts at ${r.schedule.startS} s, runs ${r.schedule.durationS} s${lateNote(r)}</p>
  <p class="verdict-line">${escapeHtml(j.finding)}: ${word(j)}</p>
  ${j.why ? `<p class="why">because ${escapeHtml(j.why)}</p>` : ""}
  <ul class="checks">${checks
    .filter(([, c]) => c.finding !== j.finding)
    .map(([label, c]) => `<li><span class="label">${label}</span> ${line(c)}</li>`)
    .join("")}</ul>
  <div class="cols">
    <div class="charts">
      <div class="chart main"><canvas id="chart-${id}" data-rule="${r.rule}" role="img" aria-label="admissions proven per window against the limit for row ${r.rule} (${r.region})"></canvas></div>
      ${caption(r)}
      <div class="chart denials"><canvas id="denials-${id}" data-rule="${r.rule}" role="img" aria-label="denials per window for row ${r.rule} (${r.region})"></canvas></div>
    </div>
    <div class="facts">
      <table class="kv">${facts.map(([k, v]) => `<tr><th>${k}</th><td>${v}</td></tr>`).join("")}</table>
      <table class="lat"><tr><th>latency ms</th><th>n</th><th>p50</th><th>p95</th><th>p99</th></tr>
        ${latencyRow("admitted", f.latency.admitted)}${latencyRow("denied", f.latency.denied)}</table>
      <p class="counters">${r.series.counters.map((c) => escapeHtml(counterLabel(c.clients))).join(" · ")}</p>
    </div>
  </div>
</section>`;
}

function summaryTable(result: LoadTestResult): string {
  const rows = result.rules
    .map((r) => {
      const f = r.figures;
      return `<tr class="${r.judgement.outcome}"><td><a href="#rule-${cardId(r, result.regions.length)}">${r.rule}</a></td><td>${escapeHtml(r.name)}</td><td>${r.region}</td><td>${r.limit.count}/${r.limit.intervalS} s</td><td title="${escapeHtml(r.scaleWhy)}">${r.timeScale}</td><td>${formatWindow(r.windowMs)}</td>
<td>${f.offeredRate}/${f.intendedRate}</td><td>${f.limitReached ? "yes" : "no"}</td><td>${f.maxInWindow.admitted}/${r.limit.count}</td><td>${f.header.exposure}</td>
<td>${f.underAdmission.maxFreeAtDenial}</td><td>${word(r.judgement.checks.retry)}</td>
<td>${num(f.latency.admitted.p50)}/${num(f.latency.admitted.p99)}</td><td>${num(f.latency.denied.p50)}/${num(f.latency.denied.p99)}</td><td>${f.errors}</td>
<td>${word(r.judgement)}</td></tr>`;
    })
    .join("\n");
  return `<div class="scroll"><table class="summary"><thead><tr><th>row</th><th>rule</th><th>region</th><th>limit</th><th title="the row's time scale: its interval is divided by it">scale</th><th>window</th><th>offered/intended /s</th><th title="the gateway refused at least one request">reached</th><th title="most admissions proven inside one window">proven</th><th title="admissions proven in the gateway's window + the r it offered">header</th><th title="most units provably free at a denial">under</th><th>retry</th><th>admit p50/p99 ms</th><th>deny p50/p99 ms</th><th>err</th><th>outcome</th></tr></thead><tbody>${rows}</tbody></table></div>`;
}

function howToRead(): string {
  return `<details class="how" open><summary>How to read this report</summary>
<p>Each rule's card opens with its verdict in one line. Its main chart plots exactly what that verdict is computed from: for every window, the admissions
the tool can <em>prove</em> were decided inside it (the request sent at or after the window's start, its answer received before the window's end), per counter,
against the limit. The tool assumes nothing about when the gateway decided a request beyond "between sending and answer", so a verdict of <b>held</b> means the
highest step reaches the limit and never crosses it. The gateway's <code>RateLimit</code> header is checked too (grey dots: proven admissions in its window plus
the <code>r</code> it still offered, also never above the limit). Shaded stretches may hold an admission that took longer than a window to answer: no window can place it, so the
check is blind there. Denials are drawn below each chart on their own scale: they are reported, not judged.</p>
<ul class="words">${OUTCOMES.map((o) => `<li><span class="word ${o}">${o}</span> ${escapeHtml(OUTCOME_MEANINGS[o])}</li>`).join("")}</ul></details>`;
}

export function renderReport(result: LoadTestResult, chartJs: string): string {
  const reached = result.rules.filter((r) => r.figures.limitReached).length;
  const title = `tollgate load test · ${result.regions.join(", ")} · time scale ${result.timeScale}`;
  const outcomes = tally(result.rules.map((r) => r.judgement.outcome));
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
  .sub { color: #5b6670; margin: 0 0 8px; font-size: 13px; }
  .badge, .word { display: inline-block; padding: 0 7px; border-radius: 10px; font-weight: 600; }
  .badge { font-size: 12px; vertical-align: middle; }
  .held { --fg: #14592a; --bg: #d6f2de; } .failed { --fg: #8e1b10; --bg: #fbd9d5; } .error { --fg: #7a2e00; --bg: #fde3c8; }
  .unjudged { --fg: #6b5200; --bg: #fbefc4; } .skipped { --fg: #46505a; --bg: #e5e9ed; }
  .badge, .word { color: var(--fg); background: var(--bg); }
  .verdict { font-size: 20px; font-weight: 700; margin: 12px 0; }
  .verdict.pass { color: #14592a; } .verdict.fail { color: #8e1b10; }
  .meta, .notes, .how { font-size: 13px; color: #38424c; }
  .notes li, .words li { margin: 2px 0; }
  .how { background: #fff; border-radius: 8px; padding: 8px 14px; box-shadow: 0 1px 2px #0001; }
  .how summary { font-weight: 600; cursor: pointer; }
  .words { list-style: none; padding: 0; }
  .words .word { min-width: 70px; text-align: center; margin-right: 6px; }
  table { border-collapse: collapse; font-size: 12.5px; }
  .scroll { overflow-x: auto; margin: 12px 0 24px; }
  table.summary { width: 100%; background: #fff; box-shadow: 0 1px 2px #0001; font-size: 12px; }
  table.summary th, table.summary td { padding: 3px 6px; border-bottom: 1px solid #e3e7eb; text-align: right; white-space: nowrap; }
  table.summary th:nth-child(2), table.summary td:nth-child(2) { text-align: left; }
  tr.failed td, tr.error td { background: #fff1ef; }
  section.rule { background: #fff; border-radius: 8px; box-shadow: 0 1px 3px #0002; padding: 14px 16px; margin: 0 0 18px; border-left: 5px solid var(--fg); }
  .verdict-line { font-size: 18px; font-weight: 600; margin: 6px 0 2px; }
  .verdict-line .word { font-size: 15px; }
  .why { font-size: 14px; margin: 0 0 4px; color: #2c353e; }
  ul.checks { list-style: none; padding: 0; margin: 0 0 10px; font-size: 13px; color: #38424c; }
  ul.checks .label { display: inline-block; min-width: 110px; color: #5b6670; }
  .cols { display: grid; grid-template-columns: minmax(0, 3fr) minmax(0, 2fr); gap: 16px; align-items: start; }
  .chart { position: relative; }
  .chart.main { height: 340px; }
  .chart.denials { height: 150px; margin-top: 4px; }
  .caption { font-size: 12px; color: #4a545e; margin: 4px 0; }
  .caption .blind { background: rgba(240, 173, 40, 0.35); padding: 0 4px; }
  .counters { font-size: 12px; color: #5b6670; }
  table.kv th { text-align: left; color: #5b6670; font-weight: 500; padding: 2px 10px 2px 0; vertical-align: top; white-space: nowrap; }
  table.kv td { padding: 2px 0; }
  .reconcile { font-size: 12px; color: #4a545e; font-style: italic; }
  table.lat { margin-top: 10px; }
  table.lat th, table.lat td { padding: 2px 8px; border-bottom: 1px solid #eef1f3; text-align: right; }
  table.lat th:first-child { text-align: left; }
  @media (max-width: 900px) { .cols { grid-template-columns: 1fr; } }
</style>
</head>
<body data-charts="0">
<h1>${escapeHtml(title)}</h1>
<div class="meta">${escapeHtml(result.gateway.kind === "local" ? "local gateway started by the tool" : `target ${result.gateway.url}`)} ·
limiter ${escapeHtml(result.algorithm)}${result.capacity ? ` · capacity ${result.capacity.rate}/s measured, ${result.capacity.budget}/s planned` : ""} · started ${escapeHtml(result.startedAt)} · traffic ${result.trafficTimeS} s · wall time ${result.wallTimeS} s</div>
<div class="verdict ${result.verdict.toLowerCase()}">${result.verdict}: ${outcomes} of ${result.rules.length} rule(s) · limit reached in ${reached}</div>
<ul class="notes">${result.notes.map((n) => `<li>${escapeHtml(n)}</li>`).join("")}</ul>
${howToRead()}
${summaryTable(result)}
${result.rules.map((r) => ruleSection(r, result.regions.length)).join("\n")}
<script>${inlineableScript(chartJs)}</script>
<script type="application/json" id="loadtest-data">${scriptJson(chartData(result))}</script>
<script>${CHART_SCRIPT}</script>
</body>
</html>
`;
}
