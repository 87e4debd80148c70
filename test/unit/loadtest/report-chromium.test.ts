// Opens a report in headless Chromium (Debian's, driven by playwright-core) and checks that every
// chart renders: a Chart.js instance per canvas, painted pixels, no console errors, no requests.
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { renderReport } from "../../../src/tools/loadtest/report.ts";
import { cannedResult } from "./fixtures.ts";

const CHROMIUM = "/usr/bin/chromium";
const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

interface PageCanvas {
  id: string;
  width: number;
  height: number;
  getContext(kind: "2d"): { getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray } } | null;
}
interface PageGlobals {
  document: { querySelectorAll(selector: "canvas"): ArrayLike<PageCanvas> & Iterable<PageCanvas> };
  Chart: { getChart(canvas: PageCanvas): { data: { datasets: unknown[] } } | undefined };
}

describe("the HTML report in Chromium", () => {
  it.skipIf(!existsSync(CHROMIUM))("renders every chart with no console error and no network", { timeout: 60_000 }, async () => {
    const { chromium } = await import("playwright-core");
    const chartJs = await readFile(join(dirname(createRequire(import.meta.url).resolve("chart.js")), "chart.umd.min.js"), "utf8");
    const dir = await mkdtemp(join(tmpdir(), "loadtest-report-"));
    const file = join(dir, "report.html");
    const result = cannedResult();
    await writeFile(file, renderReport(result, chartJs));

    const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    try {
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      const problems: string[] = [];
      page.on("console", (m) => {
        if (m.type() === "error" || m.type() === "warning") problems.push(`${m.type()}: ${m.text()}`);
      });
      page.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
      const requests: string[] = [];
      page.on("request", (r) => {
        if (!r.url().startsWith("file:")) requests.push(r.url());
      });

      await page.goto(pathToFileURL(file).href, { waitUntil: "load" });
      await page.waitForFunction(`document.body.getAttribute("data-charts") !== "0"`, undefined, { timeout: 15_000 });

      const charts = await page.evaluate(() => {
        // This runs in the page; the Node-side type check has no DOM library, hence the local types.
        const { document, Chart } = globalThis as unknown as PageGlobals;
        return [...document.querySelectorAll("canvas")].map((canvas) => {
          const chart = Chart.getChart(canvas);
          const ctx = canvas.getContext("2d")!;
          const { data } = ctx.getImageData(0, 0, canvas.width, canvas.height);
          let painted = 0;
          const colours = new Set<string>();
          for (let i = 0; i < data.length; i += 4) {
            if (data[i + 3]! > 0) {
              painted++;
              if (painted % 7 === 0) colours.add(`${data[i]},${data[i + 1]},${data[i + 2]}`);
            }
          }
          return { id: canvas.id, chart: Boolean(chart), datasets: chart?.data.datasets.length ?? 0, width: canvas.width, height: canvas.height, painted, colours: colours.size };
        });
      });

      expect(charts.map((c) => c.id)).toEqual(result.rules.map((r) => `chart-${r.rule}`));
      for (const c of charts) {
        expect(c.chart).toBe(true);
        expect(c.datasets).toBe(6); // steady/burst x admitted/denied, the limit, the proven window
        expect(c.width).toBeGreaterThan(300);
        expect(c.height).toBeGreaterThan(200);
        // Axes, grid, legend and lines: far more than a blank canvas, in several colours.
        expect(c.painted).toBeGreaterThan(5_000);
        expect(c.colours).toBeGreaterThan(4);
      }
      expect(problems).toEqual([]);
      expect(requests).toEqual([]);
    } finally {
      await browser.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
