// Pure: the report's charts: the data embedded in the page and the script that draws it with the
// inlined Chart.js. Per rule, a main panel plots what the verdict is computed from (admissions
// proven per window, series.ts) against the limit; a second panel, on its own scale, the denials.
import { formatWindow, round } from "./answer.ts";
import type { LoadTestResult, RuleResult } from "./loadtest.ts";
import type { Phase } from "./traffic.ts";

/** A row's card and charts: by its number, with its region when the run had several. */
export const cardId = (r: Pick<RuleResult, "rule" | "region">, regions: number): string => (regions > 1 ? `${r.region}-${r.rule}` : String(r.rule));

/** How a counter's line is named: by its one client, or as the shared counter it was. */
export function counterLabel(clients: readonly Phase[]): string {
  return clients.length === 1 ? `${clients[0]} client` : `${clients.join(" + ")} (one counter)`;
}

/** Stretches of the x axis (seconds) where a slow admission may lie in the window: [from, to]. */
export function blindStretches(t: readonly number[], hidden: readonly number[]): [number, number][] {
  const out: [number, number][] = [];
  hidden.forEach((n, k) => {
    if (n === 0) return;
    const last = out.at(-1);
    if (last && last[1] === t[k]) last[1] = t[k + 1]!;
    else out.push([t[k]!, t[k + 1]!]);
  });
  return out;
}

/** Where the largest proven set sits on the chart: its window's end, and which counter it was on. */
export function provenMarker(r: RuleResult): { x: number; y: number; counter: string } {
  const best = r.figures.maxInWindow;
  if (best.admitted === 0) return { x: 0, y: 0, counter: "" };
  const on = r.series.counters.find((c) => Math.max(0, ...c.proven) === best.admitted);
  return {
    x: round((best.atMs + r.windowMs) / 1000 - r.schedule.startS, 3),
    y: best.admitted,
    counter: on ? counterLabel(on.clients) : "",
  };
}

/** The data the page's script draws from: only what the charts need. */
export function chartData(result: LoadTestResult) {
  return result.rules.map((r) => {
    const s = r.series;
    return {
      rule: r.rule,
      id: cardId(r, result.regions.length),
      count: r.limit.count,
      limitLabel: `limit: ${r.limit.count} per ${r.limit.intervalS} s window` + (r.timeScale !== 1 ? ` (${formatWindow(r.windowMs)} here)` : ""),
      window: formatWindow(r.windowMs),
      t: s.t,
      counters: s.counters.map((c) => ({ label: counterLabel(c.clients), client: c.clients.length === 1 ? c.clients[0] : "shared", proven: c.proven })),
      header: s.header,
      blind: blindStretches(s.t, s.hidden),
      denied: s.denied,
      marker: provenMarker(r),
    };
  });
}

export const CHART_SCRIPT = `
(function () {
  var data = JSON.parse(document.getElementById("loadtest-data").textContent);
  var colors = { steady: "#1f7a3a", burst: "#2f6fb0", retry: "#b0367a", shared: "#0f6e6e" };
  var denialColors = { steady: "#c0392b", burst: "#d98324", retry: "#8e5ba6" };
  var MARK = "#6a1fb0";
  var BLIND = "rgba(240, 173, 40, 0.22)";
  var LIMIT_ORDER = -1;
  // Stretches where an admission slower than a window may lie: the check cannot see it there.
  var blindPlugin = { id: "blind", beforeDatasetsDraw: function (chart, args, opts) {
    var area = chart.chartArea, x = chart.scales.x, ctx = chart.ctx;
    ctx.save(); ctx.fillStyle = BLIND;
    (opts.stretches || []).forEach(function (b) {
      var x0 = Math.max(area.left, x.getPixelForValue(b[0])), x1 = Math.min(area.right, x.getPixelForValue(b[1]));
      if (x1 > x0) ctx.fillRect(x0, area.top, Math.max(1, x1 - x0), area.bottom - area.top);
    });
    ctx.restore();
  } };
  // The window the verdict's figure comes from: a labelled vertical line, easy to find.
  var markerPlugin = { id: "marker", afterDatasetsDraw: function (chart, args, opts) {
    if (!opts.label) return;
    var area = chart.chartArea, ctx = chart.ctx, px = chart.scales.x.getPixelForValue(opts.x);
    ctx.save();
    ctx.strokeStyle = MARK; ctx.lineWidth = 1.5; ctx.setLineDash([4, 3]);
    ctx.beginPath(); ctx.moveTo(px, area.top); ctx.lineTo(px, area.bottom); ctx.stroke();
    ctx.setLineDash([]); ctx.font = "600 12px system-ui, sans-serif";
    var w = ctx.measureText(opts.label).width, tx = px + 8 + w > area.right ? px - 8 - w : px + 8;
    ctx.fillStyle = "rgba(255,255,255,0.9)"; ctx.fillRect(tx - 4, area.top + 3, w + 8, 18);
    ctx.fillStyle = MARK; ctx.fillText(opts.label, tx, area.top + 16);
    ctx.restore();
  } };
  function steps(t, values) {
    // One point per step start, plus the last step's end: drawn "stepped", each value holds over its step.
    var pts = values.map(function (y, k) { return { x: t[k], y: y }; });
    if (values.length) pts.push({ x: t[values.length], y: values[values.length - 1] });
    return pts;
  }
  var xAxis = function (rule, title) {
    return { type: "linear", min: 0, max: rule.t[rule.t.length - 1], title: { display: Boolean(title), text: title } };
  };
  var legend = { position: "bottom", labels: { boxWidth: 14, font: { size: 11 } } };
  // Both panels of a rule share their x axis: equal y-axis widths keep the seconds aligned.
  var alignY = function (scale) { scale.width = 64; };
  var made = 0;
  data.forEach(function (rule) {
    var main = document.getElementById("chart-" + rule.id);
    var below = document.getElementById("denials-" + rule.id);
    if (!main || !below) return;
    var datasets = rule.counters.map(function (c) {
      return { label: "proven in one window: " + c.label, data: steps(rule.t, c.proven), borderColor: colors[c.client], backgroundColor: colors[c.client],
        borderWidth: 2, pointRadius: 0, stepped: true,
        // A step above the limit is a violation the verdict reports: drawn red so it cannot be missed.
        segment: { borderColor: function (ctx) { return ctx.p0.parsed.y > rule.count || ctx.p1.parsed.y > rule.count ? "#d0021b" : undefined; } } };
    });
    // The limit spans the whole x axis and is drawn over everything else (Chart.js draws the lowest
    // order last): a held rule's steps sit exactly on it and would otherwise hide it.
    datasets.push({ label: rule.limitLabel, data: [{ x: rule.t[0], y: rule.count }, { x: rule.t[rule.t.length - 1], y: rule.count }],
      borderColor: "#111", backgroundColor: "#fff", borderWidth: 2, borderDash: [8, 4], pointRadius: 0, order: LIMIT_ORDER });
    datasets.push({ label: "RateLimit check: proven + r offered", type: "scatter",
      data: rule.header.map(function (y, k) { return y === null ? null : { x: (rule.t[k] + rule.t[k + 1]) / 2, y: y }; }).filter(Boolean),
      borderColor: "#8a939b", backgroundColor: "#8a939b", pointRadius: 1.8 });
    datasets.push({ label: "most proven in one window: " + rule.marker.y, type: "scatter", data: [{ x: rule.marker.x, y: rule.marker.y }],
      borderColor: MARK, backgroundColor: MARK, pointRadius: 7, pointStyle: "rectRot" });
    if (rule.blind.length) datasets.push({ label: "shaded: a slower-than-window admission may lie here", data: [], borderColor: BLIND, backgroundColor: BLIND, borderWidth: 0 });
    new Chart(main, {
      type: "line",
      data: { datasets: datasets },
      plugins: [blindPlugin, markerPlugin],
      options: {
        animation: false, responsive: true, maintainAspectRatio: false, normalized: true,
        interaction: { mode: "nearest", intersect: false },
        scales: {
          x: xAxis(rule, "seconds since the rule started (end of the window)"),
          y: { beginAtZero: true, suggestedMax: Math.ceil(rule.count * 1.15), afterFit: alignY, ticks: { precision: 0 }, title: { display: true, text: "admitted per " + rule.window + " window (proven)" } }
        },
        plugins: {
          legend: legend,
          blind: { stretches: rule.blind },
          marker: { x: rule.marker.x, label: rule.marker.y === 0 ? "" : "most proven: " + rule.marker.y + " of " + rule.count + (rule.marker.counter ? " (" + rule.marker.counter + ")" : "") }
        }
      }
    });
    made++;
    new Chart(below, {
      type: "line",
      data: { datasets: rule.denied.map(function (d) {
        return { label: d.client + " client denied", data: steps(rule.t, d.values), borderColor: denialColors[d.client], backgroundColor: denialColors[d.client],
          borderWidth: 1.5, pointRadius: 0, stepped: true };
      }) },
      options: {
        animation: false, responsive: true, maintainAspectRatio: false, normalized: true,
        scales: { x: xAxis(rule, ""), y: { beginAtZero: true, suggestedMax: 1, afterFit: alignY, ticks: { maxTicksLimit: 4, precision: 0 } } },
        plugins: {
          legend: legend,
          title: { display: true, align: "start", font: { size: 12, weight: "normal" },
            text: rule.denied.length ? "denials (429) received in the trailing " + rule.window + ", own scale: reported, not judged" : "no request was denied" }
        }
      }
    });
    made++;
  });
  window.__loadtestCharts = made;
  document.body.setAttribute("data-charts", String(made));
})();`;
