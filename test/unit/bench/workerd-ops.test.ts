// npm run bench:workerd-ops end to end, small: every operation runs in a real workerd and gets a
// figure. (What the figures are is the machine's; only that each is measured is tested.)
import { describe, expect, it } from "vitest";
import { inRepo } from "../support/paths.ts";
import { execFileAsync } from "../support/processes.ts";

describe("bench:workerd-ops", () => {
  it("prints a cost for every operation, over the empty loop measured beside it", { timeout: 120_000 }, async () => {
    const { stdout } = await execFileAsync(process.execPath, [inRepo("bench/workerd-ops.ts"), "--iterations", "200", "--rounds", "1"], { cwd: inRepo() });
    const lines = stdout.split("\n").filter((line) => line.startsWith("  "));
    const figure = (name: string) => {
      const line = lines.find((l) => l.trimStart().startsWith(name));
      expect(line, name).toBeDefined();
      return Number(/\s(-?\d+\.\d+) us/.exec(line!)![1]);
    };
    expect(figure("empty loop (the baseline)")).toBeGreaterThanOrEqual(0);
    for (const name of [
      "setTimeout + clearTimeout",
      "new Error",
      "new Request, the client's headers copied",
      "new Response, 4 headers in its init",
      "Headers: scan of the names",
    ])
      expect(Number.isFinite(figure(name)), name).toBe(true);
    expect(lines).toHaveLength(13);
  });

  it("refuses a bad option in one line", async () => {
    const failed = await execFileAsync(process.execPath, [inRepo("bench/workerd-ops.ts"), "--iterations", "0"], { cwd: inRepo() }).catch(
      (error: { code: number; stderr: string }) => error,
    );
    expect(failed).toMatchObject({ code: 2 });
    expect((failed as { stderr: string }).stderr).toMatch(/--iterations/);
  });
});
