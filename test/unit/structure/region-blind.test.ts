// The files the EU project leaves out (test/setup/region-blind.ts) stay ones the region cannot
// change: if a reason below stops holding, this fails, and the file belongs in both projects again.
import { globSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ruleTables } from "../../../src/core/rules/tables.ts";
import { REGION_BLIND } from "../../setup/region-blind.ts";
import { REPO_ROOT } from "../support/paths.ts";

const files = REGION_BLIND.flatMap((pattern) => globSync(pattern, { cwd: REPO_ROOT })).filter((file) => file.endsWith(".ts"));
const text = (file: string) => readFileSync(`${REPO_ROOT}/${file}`, "utf8");

describe("the test files run in the US project only", () => {
  it("are found (a moved file would otherwise run in both, or in neither)", () => {
    expect(files).toContain("test/workers/gateway/differential.test.ts");
    expect(files.filter((file) => file.startsWith("test/workers/through-gateway/") && file.endsWith(".test.ts")).length).toBeGreaterThan(0);
  });

  it("never read the region or a row's limits", () => {
    for (const file of files) expect(text(file), file).not.toMatch(/\bREGION\b|\blimits\s*(\.|\[)/);
  });

  it("through-gateway/: the control plane's and the agent server's rows have the same limits in both regions", () => {
    for (const upstream of ["control-plane", "agent-server"] as const) {
      for (const rule of ruleTables[upstream].rules) expect(rule.limits.eu, `${upstream} row ${rule.id}`).toEqual(rule.limits.us);
    }
  });

  it("through-gateway/: use neither the hosted API's table nor its binding (its rows differ by region)", () => {
    for (const file of files.filter((f) => f.startsWith("test/workers/through-gateway/"))) {
      expect(text(file), file).not.toMatch(/hosted-api\.json|hostedApiTable|HOSTED_API/);
    }
  });

  it("differential.test.ts: every request is counted by the limiter that admits all, so no limit is read", () => {
    const source = text("test/workers/gateway/differential.test.ts");
    expect(source.match(/recordingLimiter\(([^)]*)\)/g)).toEqual(['recordingLimiter("allow")']);
    expect(source).toMatch(/seed: \d+/);
  });
});
