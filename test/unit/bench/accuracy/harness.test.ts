// The real harness end to end: the built gateway in 4 isolates on one owner's objects. Figures
// depend on the counting code (being fixed in parallel) and on the machine, so only what must
// hold whatever the speed is asserted: it completes, it reports, nothing is over-admitted. On row
// 18 (10 per 60 s per API key, its window 1 s at time scale 60): the scenarios send about 3 x count
// requests and wait out one Retry-After each, so a small count and a short window keep the run to
// its build and start.
import { describe, expect, it } from "vitest";
import { renderReport } from "../../../../bench/accuracy/report.ts";
import { runAccuracy } from "../../../../bench/accuracy/run.ts";
import { execFileAsync } from "../../support/processes.ts";

const MAIN = new URL("../../../../bench/accuracy/main.ts", import.meta.url).pathname;

describe("bench:accuracy", () => {
  it("runs K=4 on the sequential and warm-many scenarios and reports their figures", async () => {
    const lines: string[] = [];
    const result = await runAccuracy({ ks: [4], scenarios: ["sequential", "warm-many"], timeScale: 60, row: 18, counterTimeoutMs: 250, help: false }, (line) =>
      lines.push(line),
    );
    expect(result.isolation[4]).toMatch(/4 workers, each its own module memory and globals/);
    expect(result.results.map((r) => [r.scenario, r.isolates])).toEqual([
      ["sequential", 4],
      ["warm-many", 4],
    ]);
    for (const { figures } of result.results) {
      expect(figures.requests).toBeGreaterThan(0);
      expect(figures.admitted).toBeGreaterThan(0);
      expect(figures.overAdmissions).toBe(0);
    }
    const report = renderReport(result);
    expect(report).toMatch(/^sequential: one request at a time/m);
    expect(report).toMatch(/^warm-many: /m);
    expect(report).toContain("│ 4  │");
    expect(report).toMatch(/^ {2}sequential: (PASS|FAIL) at K=4/m);
    expect(lines.some((line) => line.startsWith("K=4 sequential:"))).toBe(true);
  }, 300_000);

  it("prints its usage with --help and refuses a bad argument with exit 2, naming the option", async () => {
    const help = await execFileAsync(process.execPath, [MAIN, "--help"]);
    expect(help.stdout).toContain("usage: npm run bench:accuracy");
    const refused = await execFileAsync(process.execPath, [MAIN, "--k", "0"]).catch((error: { code: number; stderr: string }) => error);
    expect(refused).toMatchObject({ code: 2 });
    expect((refused as { stderr: string }).stderr).toMatch(/^bench:accuracy: --k: /);
  }, 60_000);
});
