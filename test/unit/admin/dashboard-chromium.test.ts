// Opens the admin dashboard of a real local gateway (wrangler's programmatic dev server, counters in
// memory) in headless Chromium (the npm package's, test/unit/support/browser.ts, driven by
// playwright-core), logged in as a browser logs in (Basic, the admin token as password): it
// renders with its charts, shows the numbers of traffic sent meanwhile, and an override added
// through its form takes effect on the next requests, then ends with its End button. No console
// error, and no request to anywhere but the gateway. Nothing is timed: each wait is for what the
// page shows, bounded by the test timeout.
// Set DASHBOARD_SCREENSHOTS=dir to keep the screenshots; UPDATE_SCREENSHOTS=1 also writes
// docs/images/dashboard.png.
import { copyFile, mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { LOCAL_BINDINGS } from "../../../tools/local-bindings.ts";
import { localSecret } from "../../../tools/local-secret.ts";
import { EMULATOR_NAMES } from "../../../tools/emulator-workers.ts";
import { serveWithWranglerDev } from "../../../tools/wrangler-dev.ts";
import { docsImage, pageProblems, testBrowser } from "../support/browser.ts";
import { REPO_ROOT } from "../support/paths.ts";

const ROOT = REPO_ROOT;
const TOKEN = "dashboard-test-token-0123456789";

/** The gateway as `npm start` runs it (us, its emulator Workers bound), with the admin API on, on a free port, in memory. */
async function startGateway() {
  const gateway = await serveWithWranglerDev({
    config: resolve(ROOT, "wrangler.toml"),
    env: "us",
    vars: { ...LOCAL_BINDINGS, IDENTITY_HMAC_SECRET: localSecret(), ADMIN_TOKEN: TOKEN },
    emulators: EMULATOR_NAMES,
  });
  return { url: gateway.url, stop: gateway.stop };
}

interface PageCanvas {
  id: string;
  width: number;
  height: number;
  getContext(kind: "2d"): { getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray } } | null;
}
// This runs in the page; the Node-side type check has no DOM library, hence the local types.
interface PageGlobals {
  document: {
    body: { dataset: Record<string, string | undefined> };
    querySelector(selector: string): { textContent: string | null; className?: string } | null;
    querySelectorAll(selector: "canvas"): ArrayLike<PageCanvas> & Iterable<PageCanvas>;
    querySelectorAll(selector: string): ArrayLike<unknown>;
  };
}

// Chart.js's own registry, as the page's inlined library defines it (window.Chart).
interface PageChart {
  data: { labels: string[]; datasets: { label: string; data: (number | null)[]; borderDash?: number[]; pointRadius?: number; spanGaps?: boolean }[] };
  legend: { legendItems: { text: string; pointStyle?: string; lineDash?: number[] }[] };
  options: { scales: { x: { title: { text: string } } } };
}
interface PageCharts {
  Chart: { getChart(id: string): PageChart | undefined };
}

/** What a chart draws: each dataset's values and dash, its legend markers, its axis title (read in the page). */
const chartShown = (id: string) => {
  const chart = (globalThis as unknown as PageCharts).Chart.getChart(id);
  if (!chart) return null;
  return {
    labels: chart.data.labels.length,
    axis: chart.options.scales.x.title.text,
    datasets: chart.data.datasets.map((d) => ({ label: d.label, data: d.data, dash: d.borderDash ?? [], pointRadius: d.pointRadius, spanGaps: d.spanGaps })),
    legend: chart.legend.legendItems.map((l) => ({ text: l.text, pointStyle: l.pointStyle, lineDash: l.lineDash ?? [] })),
  };
};
const SHORT_DIGEST = /^[0-9a-f]{8}…[0-9a-f]{4}$/;

describe("the admin dashboard in Chromium", () => {
  it("renders, shows live numbers after traffic, and an override made through its form takes effect", { timeout: 180_000 }, async () => {
    const { chromium } = await import("playwright-core");
    const dir = await mkdtemp(join(tmpdir(), "dashboard-"));
    const shots = process.env.DASHBOARD_SCREENSHOTS ?? dir;
    await mkdir(shots, { recursive: true });
    const gateway = await startGateway();
    const base = gateway.url.origin;
    // The dashboard is on the admin host only (ADMIN_HOSTS, docs/admin.md): an origin of its own,
    // which Chromium resolves to the loopback address as it does every *.localhost name.
    const adminBase = `http://${LOCAL_BINDINGS.ADMIN_HOSTS}:${gateway.url.port}`;
    const browser = await chromium.launch(await testBrowser());
    try {
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, httpCredentials: { username: "admin", password: TOKEN } });
      const page = await context.newPage();
      const problems = pageProblems(page);
      const elsewhere: string[] = [];
      page.on("request", (r) => {
        if (new URL(r.url()).origin !== adminBase) elsewhere.push(r.url());
      });
      const shown = (selector: string) => page.evaluate((s) => (globalThis as unknown as PageGlobals).document.querySelector(s)?.textContent ?? null, selector);
      // Functions, not strings: the page's content policy forbids eval, and a string predicate is one.
      // Each runs in the page, so it names the page's document itself.
      const waitFor = (predicate: (arg: number[]) => boolean, arg: number[] = []) => page.waitForFunction(predicate, arg, { timeout: 0, polling: 100 });

      await page.goto(`${adminBase}/_tollgate/dashboard?refresh=500`, { waitUntil: "load" });
      await waitFor(() => Number((globalThis as unknown as PageGlobals).document.body.dataset.loaded) >= 1);
      expect(await shown("#overrides tbody")).toContain("No override is active");

      // Traffic from outside the page: one key on row 28 (1 per 10 s in us).
      const K = `dash-${crypto.randomUUID()}`;
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) {
        const res = await fetch(`${base}/runs/stats`, { headers: { "x-api-key": K } });
        statuses.push(res.status);
        await res.body?.cancel();
      }
      const admitted = statuses.filter((s) => s === 200).length;
      const denied = statuses.filter((s) => s === 429).length;
      expect(admitted + denied).toBe(4);
      expect(denied).toBeGreaterThan(0);
      // The page's next reads show exactly what the gateway answered.
      await waitFor(
        ([a, d]) => {
          const { document } = globalThis as unknown as PageGlobals;
          const cell = (name: string) => document.querySelector(`#rules tr[data-rule="28"] td.${name}`)?.textContent;
          return cell("admitted") === String(a) && cell("denied") === String(d);
        },
        [admitted, denied],
      );
      await waitFor(() => {
        const { document } = globalThis as unknown as PageGlobals;
        return document.body.dataset.charts === "1" && document.querySelector('#limited tbody tr[data-counter^="us:28:"]') !== null;
      });
      expect(await shown(`#limited tbody`)).not.toContain(K);

      const canvases = await page.evaluate(() =>
        [...(globalThis as unknown as PageGlobals).document.querySelectorAll("canvas")].map((canvas) => {
          const { data } = canvas.getContext("2d")!.getImageData(0, 0, canvas.width, canvas.height);
          let painted = 0;
          for (let i = 3; i < data.length; i += 4) if (data[i]! > 0) painted++;
          return { id: canvas.id, width: canvas.width, painted };
        }),
      );
      expect(canvases.map((c) => c.id)).toEqual(["chart-28"]);
      expect(canvases[0]!.width).toBeGreaterThan(300);
      expect(canvases[0]!.painted).toBeGreaterThan(2_000); // axes, grid, legend and bars, not a blank canvas
      // The numbers beside the counts: denial rate, the deny cache as part of the denials, counter latency.
      const cellOf = (name: string) => shown(`#rules tr[data-rule="28"] td.${name}`);
      expect(await cellOf("denial-rate")).toBe(`${((100 * denied) / 4).toFixed(1)}%`);
      const fromCache = Number(await cellOf("deny-cache"));
      expect(fromCache).toBeLessThanOrEqual(denied);
      expect(await shown("#card-denied .n")).toBe(String(denied));
      expect(await shown("#card-denied .l")).toBe(`denied, of which ${fromCache} from the deny cache`);
      expect(await shown("#card-denial-rate .n")).toBe(`${((100 * denied) / 4).toFixed(1)}%`);
      expect(await cellOf("counter-p50")).toMatch(/^≤ \d+$/);
      expect(await cellOf("counter-p99")).toMatch(/^≤ \d+$/);
      expect(Number((await cellOf("counter-p99"))!.slice(2))).toBeGreaterThanOrEqual(Number((await cellOf("counter-p50"))!.slice(2)));
      expect((await shown('#limited tbody tr[data-counter^="us:28:"] code'))!.slice("us:28:".length)).toMatch(SHORT_DIGEST);
      // The charts show the span their title says, the rule's limit (1 per 10 s) flat across it.
      expect(await shown("#charts-title")).toContain("in the last 5 minutes");
      const chart28 = (await page.evaluate(chartShown, "chart-28"))!;
      expect(chart28.labels).toBe(30);
      expect(chart28.axis).toContain("last 5 minutes");
      const limitLine = chart28.datasets.find((d) => d.label.startsWith("rule limit"))!;
      expect(limitLine).toMatchObject({ label: "rule limit 1 / 10 s", data: new Array(30).fill(1), dash: [5, 4], pointRadius: 0 });
      expect(chart28.datasets.find((d) => d.label.startsWith("fullest"))!.spanGaps).toBe(false);
      expect(chart28.legend.find((l) => l.text.startsWith("rule limit"))).toMatchObject({ pointStyle: "line", lineDash: [5, 4] });
      await page.screenshot({ path: join(shots, "dashboard-traffic.png"), fullPage: true });
      const docs = docsImage("dashboard.png");
      if (docs) await copyFile(join(shots, "dashboard-traffic.png"), docs);
      // The span chosen by hand: the last hour, 360 buckets, the title and axis saying so; then back.
      await page.selectOption("#span", "1h");
      await waitFor(() => (globalThis as unknown as PageCharts).Chart.getChart("chart-28")?.data.labels.length === 360);
      expect(await shown("#charts-title")).toContain("in the last hour");
      expect((await page.evaluate(chartShown, "chart-28"))!.axis).toContain("(last hour, 10 s buckets)");
      await page.selectOption("#span", "");
      await waitFor(() => (globalThis as unknown as PageCharts).Chart.getChart("chart-28")?.data.labels.length === 30);

      // An override through the form: key K2 may make 2 requests per hour on row 12.
      const K2 = `dash-${crypto.randomUUID()}`;
      await page.selectOption('select[name="target"]', "identity");
      await page.fill('input[name="rule"]', "12");
      await page.selectOption('select[name="kind"]', "api-key");
      await page.fill('input[name="value"]', K2);
      await page.selectOption('select[name="action"]', "limit");
      await page.fill('input[name="count"]', "2");
      await page.fill('input[name="interval"]', "3600");
      await page.fill('input[name="reason"]', "trial from the dashboard");
      await page.click('button[type="submit"]');
      await waitFor(() => {
        const { document } = globalThis as unknown as PageGlobals;
        return document.querySelector("#form-status")?.className === "ok" && document.querySelectorAll("#overrides tbody tr[data-override]").length === 1;
      });
      expect(await shown("#overrides tbody")).toContain("limit us 2 / 3600 s");
      expect(await shown("#overrides tbody")).not.toContain(K2);
      expect(await shown("#audit tbody")).toContain("admin");

      const send = async () => {
        const res = await fetch(`${base}/runs/query`, { method: "POST", headers: { "x-api-key": K2 } });
        await res.body?.cancel();
        return [res.status, res.headers.get("ratelimit-policy")];
      };
      expect(await send()).toEqual([200, '"runs-query-key";q=2;w=3600']);
      expect(await send()).toEqual([200, '"runs-query-key";q=2;w=3600']);
      expect(await send()).toEqual([429, '"runs-query-key";q=2;w=3600']);
      // Row 12's chart keeps the rule's limit (15 per 10 s) flat; K2's override is listed beside it,
      // by the same short digest the overrides table shows.
      await waitFor(() => (globalThis as unknown as PageGlobals).document.querySelector("#rule-12 ul.identity-overrides li") !== null);
      const chart12 = (await page.evaluate(chartShown, "chart-12"))!;
      expect(chart12.datasets.find((d) => d.label.startsWith("rule limit"))!.data).toEqual(new Array(chart12.labels).fill(15));
      const listed = (await shown("#rule-12 ul.identity-overrides li"))!;
      const digest = /api-key ([0-9a-f]{8}…[0-9a-f]{4}): limit 2 \/ 3600 s$/.exec(listed)?.[1];
      expect(digest).toMatch(SHORT_DIGEST);
      expect(await shown("#overrides tbody")).toContain(`api-key ${digest} on rule 12`);
      await page.screenshot({ path: join(shots, "dashboard-override.png"), fullPage: true });

      // Its End button ends it: K2 is back on the published limit.
      await page.click("#overrides button[data-end]");
      await waitFor(() => (globalThis as unknown as PageGlobals).document.querySelectorAll("#overrides tbody tr[data-override]").length === 0);
      expect((await send())[1]).toBe('"runs-query-key";q=15;w=10');
      await waitFor(() => (globalThis as unknown as PageGlobals).document.querySelectorAll("#audit tbody tr[data-seq]").length === 2);

      // A user at an address, exempted for an hour on row 13 through the form (an exemption must
      // expire): that user from that address is not counted, from another address it is.
      const user = `dash-user-${crypto.randomUUID()}`;
      await page.fill('input[name="rule"]', "13");
      await page.selectOption('select[name="kind"]', "user-ip");
      await page.fill('input[name="value"]', user);
      await page.fill('input[name="ip"]', "203.0.113.9");
      await page.selectOption('select[name="action"]', "exempt");
      await page.fill('input[name="expires"]', "3600");
      await page.fill('input[name="reason"]', "support session");
      await page.click('button[type="submit"]');
      await waitFor(() => (globalThis as unknown as PageGlobals).document.querySelectorAll("#overrides tbody tr[data-override]").length === 1);
      expect(await shown("#overrides tbody")).toContain("user-ip");
      const asUser = async (ip: string) => {
        const res = await fetch(`${base}/runs/query`, { method: "POST", headers: { "x-user-id": user, "cf-connecting-ip": ip } });
        await res.body?.cancel();
        return res.headers.get("ratelimit-policy");
      };
      expect(await asUser("203.0.113.9")).toBeNull();
      expect(await asUser("203.0.113.10")).toBe('"runs-query-user";q=300;w=10');

      expect(problems).toEqual([]);
      expect(elsewhere).toEqual([]);
    } finally {
      await browser.close();
      await gateway.stop();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
