// Opens a report of the canned (simulated, machine-independent) run in headless Chromium (the npm
// package's, test/unit/support/browser.ts, driven by playwright-core), screenshots it, and checks
// what a person would look at: every card opens with its verdict line; every chart painted; a held
// rule's lines reach the limit and never cross it, a failed rule's do (drawn red), and the slow
// rule's blind windows are shaded. No console errors, no requests. Set LOADTEST_SCREENSHOTS=dir to
// keep the screenshots; UPDATE_SCREENSHOTS=1 also writes docs/images/loadtest-report.png.
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { formatWindow } from "../../../../tools/loadtest/answer.ts";
import { renderReport } from "../../../../tools/loadtest/report.ts";
import { docsImage, pageProblems, testBrowser } from "../../support/browser.ts";
import { cannedResult } from "./fixtures.ts";

const WIDTH = 1280;
/** Colours the page's script draws with (report-charts.ts): a step above the limit, and blind windows. */
const ABOVE_LIMIT = [208, 2, 27] as const;
const BLIND = [240, 173, 40] as const;

interface PageCanvas {
  id: string;
  width: number;
  height: number;
  getContext(kind: "2d"): { getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray } } | null;
}
interface PageChart {
  /** CSS pixels, like chartArea (the canvas itself is in device pixels). */
  width: number;
  chartArea: { left: number; top: number; right: number; bottom: number };
  data: { datasets: { label: string; data: ({ x: number; y: number } | null)[] }[] };
  options: { plugins: { marker?: { label: string } } };
  scales: { x: { getPixelForValue(v: number): number }; y: { getPixelForValue(v: number): number } };
  /** In drawing order reversed: Chart.js draws the last first, so the first is on top. */
  getSortedVisibleDatasetMetas(): { index: number }[];
}
interface PageGlobals {
  document: { querySelectorAll(selector: "canvas"): ArrayLike<PageCanvas> & Iterable<PageCanvas> };
  Chart: { getChart(canvas: PageCanvas): PageChart | undefined };
}

/** Width and height from a PNG's IHDR chunk, after checking its signature. */
function pngSize(png: Buffer): { width: number; height: number } {
  expect(png.subarray(0, 8).toString("hex")).toBe("89504e470d0a1a0a");
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}

describe("the HTML report in Chromium", () => {
  it("shows each verdict line and its charts, held lines never above the limit", { timeout: 60_000 }, async () => {
    const { chromium } = await import("playwright-core");
    const chartJs = await readFile(join(dirname(createRequire(import.meta.url).resolve("chart.js")), "chart.umd.min.js"), "utf8");
    const dir = await mkdtemp(join(tmpdir(), "loadtest-report-"));
    const shots = process.env.LOADTEST_SCREENSHOTS ?? dir;
    await mkdir(shots, { recursive: true });
    const file = join(dir, "report.html");
    const result = cannedResult();
    await writeFile(file, renderReport(result, chartJs));

    const browser = await chromium.launch(await testBrowser());
    try {
      const page = await browser.newPage({ viewport: { width: WIDTH, height: 900 } });
      const problems = pageProblems(page);
      const requests: string[] = [];
      page.on("request", (r) => {
        if (!r.url().startsWith("file:")) requests.push(r.url());
      });

      await page.goto(pathToFileURL(file).href, { waitUntil: "load" });
      await page.waitForFunction(`document.body.getAttribute("data-charts") === "${2 * result.rules.length}"`, undefined, { timeout: 15_000 });

      // The screenshots a person looks at: the whole page, and each card.
      const full = await page.screenshot({ path: join(shots, "report.png"), fullPage: true });
      const docs = docsImage("loadtest-report.png");
      if (docs) await copyFile(join(shots, "report.png"), docs);
      expect(pngSize(full).width).toBe(WIDTH);
      expect(pngSize(full).height).toBeGreaterThan(900 * result.rules.length * 0.6);

      for (const r of result.rules) {
        const card = page.locator(`#rule-${r.rule}`);
        const shot = pngSize(await card.screenshot({ path: join(shots, `rule-${r.rule}.png`) }));
        expect(shot.width).toBeGreaterThan(WIDTH * 0.8);
        expect(shot.height).toBeGreaterThan(400);
        // The card opens with its verdict line: visible, above both charts, word included.
        const verdict = card.locator(".verdict-line");
        expect(await verdict.textContent()).toBe(`${r.judgement.finding}: ${r.judgement.outcome}`);
        const [lineBox, chartBox, denialsBox] = await Promise.all([
          verdict.boundingBox(),
          card.locator("canvas").first().boundingBox(),
          card.locator("canvas").last().boundingBox(),
        ]);
        expect(lineBox!.height).toBeGreaterThan(10);
        expect(lineBox!.y).toBeLessThan(chartBox!.y);
        expect(chartBox!.y).toBeLessThan(denialsBox!.y);
        if (r.judgement.why) expect(await card.locator(".why").textContent()).toBe(`because ${r.judgement.why}`);
      }

      const charts = await page.evaluate(
        ([above, blind]) => {
          // This runs in the page; the Node-side type check has no DOM library, hence the local types.
          const { document, Chart } = globalThis as unknown as PageGlobals;
          return [...document.querySelectorAll("canvas")].map((canvas) => {
            const chart = Chart.getChart(canvas);
            const { data } = canvas.getContext("2d")!.getImageData(0, 0, canvas.width, canvas.height);
            let painted = 0;
            let red = 0;
            let shaded = 0;
            // Lines and shading are judged inside the plot area only: the legend repeats their colours.
            const area = chart?.chartArea ?? { left: 0, top: 0, right: 0, bottom: 0 };
            const scale = chart ? canvas.width / chart.width : 1;
            const inside = (i: number) => {
              const x = (i / 4) % canvas.width;
              const y = Math.floor(i / 4 / canvas.width);
              return x >= area.left * scale && x < area.right * scale && y >= area.top * scale && y < area.bottom * scale;
            };
            const colours = new Set<string>();
            // Translucent pixels come back un-premultiplied, a unit or two off.
            const near = (i: number, rgb: readonly number[]) => rgb.every((v, k) => Math.abs(data[i + k]! - v) <= 3);
            for (let i = 0; i < data.length; i += 4) {
              if (data[i + 3]! === 0) continue;
              painted++;
              if (painted % 7 === 0) colours.add(`${data[i]},${data[i + 1]},${data[i + 2]}`);
              if (!inside(i)) continue;
              if (near(i, above) && data[i + 3]! === 255) red++;
              if (near(i, blind) && data[i + 3]! < 128) shaded++;
            }
            const proven = (chart?.data.datasets ?? []).filter((d) => d.label.startsWith("proven in one window"));
            // The limit line as painted: in each tenth of the x axis, a dark pixel on the limit's row.
            const limit = (chart?.data.datasets ?? []).find((d) => d.label.startsWith("limit:"));
            const limitTenths = new Set<number>();
            if (chart && limit) {
              const y0 = Math.round(chart.scales.y.getPixelForValue(limit.data[0]!.y) * scale);
              for (let y = y0 - 2; y <= y0 + 2; y++) {
                for (let x = Math.ceil(area.left * scale); x < area.right * scale; x++) {
                  const i = 4 * (y * canvas.width + x);
                  if (data[i + 3]! > 128 && data[i]! < 70 && data[i + 1]! < 70 && data[i + 2]! < 70)
                    limitTenths.add(Math.floor((10 * (x / scale - area.left)) / (area.right - area.left)));
                }
              }
            }
            const metas = chart?.getSortedVisibleDatasetMetas() ?? [];
            return {
              topmost: metas.length ? chart!.data.datasets[metas[0]!.index]!.label : "",
              limitTenths: limitTenths.size,
              id: canvas.id,
              chart: Boolean(chart),
              labels: (chart?.data.datasets ?? []).map((d) => d.label),
              provenPeak: Math.max(0, ...proven.flatMap((d) => d.data.map((p) => p?.y ?? 0))),
              marker: chart?.options.plugins.marker?.label ?? "",
              width: canvas.width,
              height: canvas.height,
              painted,
              colours: colours.size,
              red,
              shaded,
            };
          });
        },
        [ABOVE_LIMIT, BLIND] as const,
      );

      expect(charts.map((c) => c.id)).toEqual(result.rules.flatMap((r) => [`chart-${r.rule}`, `denials-${r.rule}`]));
      for (const c of charts) {
        expect(c.chart, c.id).toBe(true);
        expect(c.width, c.id).toBeGreaterThan(300);
        // Axes, grid, legend and lines: far more than a blank canvas, in several colours (a denial
        // panel with nothing denied still draws its axes, grid and title).
        expect(c.painted, c.id).toBeGreaterThan(c.id.startsWith("chart-") ? 5_000 : 1_500);
        expect(c.colours, c.id).toBeGreaterThan(3);
      }
      for (const r of result.rules) {
        const main = charts.find((c) => c.id === `chart-${r.rule}`)!;
        const { count } = r.limit;
        expect(main.labels).toContain(`limit: ${count} per ${r.limit.intervalS} s window (${formatWindow(r.windowMs)} here)`);
        expect(main.labels.filter((l) => l.startsWith("proven in one window"))).toHaveLength(r.series.counters.length);
        // The limit is drawn last (over the steps that sit on it) and shows along the whole x axis.
        expect(main.topmost, `row ${r.rule} drawn on top`).toMatch(/^limit: /);
        expect(main.limitTenths, `row ${r.rule} tenths of the axis showing the limit`).toBe(10);
        // The chart's highest step is the verdict's figure, and the marker names it.
        expect(main.provenPeak, `row ${r.rule}`).toBe(r.figures.maxInWindow.admitted);
        expect(main.marker).toMatch(new RegExp(`^most proven: ${r.figures.maxInWindow.admitted} of ${count}\\b`));
        if (r.judgement.outcome === "held") expect(main.provenPeak).toBe(count);
        if (r.judgement.outcome === "failed") expect(main.provenPeak).toBeGreaterThan(count);
        // Red only where a step crosses the limit; shading only where a slow admission hides.
        expect(main.red > 0, `row ${r.rule} red steps`).toBe(main.provenPeak > count);
        expect(main.shaded > 0, `row ${r.rule} shading`).toBe(r.series.hiddenTotal > 0);
      }
      expect(problems).toEqual([]);
      expect(requests).toEqual([]);
    } finally {
      await browser.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  // The docs' picture of a real run: LOADTEST_REPORT=<a report written by npm run loadtest --
  // --report FILE> with UPDATE_SCREENSHOTS=1 writes docs/images/loadtest-report-run.png (the summary
  // and the first cards). It runs only when given a report: the run takes minutes, not a test's time.
  it.runIf(process.env.LOADTEST_REPORT)("renders a real run's report: every card, every chart painted, no console error", { timeout: 120_000 }, async () => {
    const { chromium } = await import("playwright-core");
    const file = process.env.LOADTEST_REPORT!;
    const html = await readFile(file, "utf8");
    const cards = html.match(/<section class="rule /g)?.length ?? 0;
    expect(cards).toBeGreaterThan(0);
    const browser = await chromium.launch(await testBrowser());
    try {
      const page = await browser.newPage({ viewport: { width: WIDTH, height: 1600 } });
      const problems = pageProblems(page);
      await page.goto(pathToFileURL(file).href, { waitUntil: "load" });
      await page.waitForFunction(`document.body.getAttribute("data-charts") === "${2 * cards}"`, undefined, { timeout: 60_000 });
      const shot = await page.screenshot({ fullPage: false });
      expect(pngSize(shot).width).toBe(WIDTH);
      const docs = docsImage("loadtest-report-run.png");
      if (docs) await writeFile(docs, shot);
      // And one card: the busiest row's, paced below scale 1 (row 11 in us when the run has it).
      const card = page.locator(html.includes('id="rule-us-11"') ? "#rule-us-11" : html.includes('id="rule-11"') ? "#rule-11" : "section.rule").first();
      const cardShot = await card.screenshot();
      expect(pngSize(cardShot).height).toBeGreaterThan(400);
      const docsCard = docsImage("loadtest-report-run-card.png");
      if (docsCard) await writeFile(docsCard, cardShot);
      expect(problems).toEqual([]);
    } finally {
      await browser.close();
    }
  });
});
