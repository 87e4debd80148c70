// The dashboard's script is written and type-checked as TypeScript (src/admin/dashboard/browser/,
// tsconfig.browser.json) and served from the module the Worker bundles
// (src/admin/dashboard/script.generated.ts): that module must be what the source gives today.
import { Script } from "node:vm";
import { format } from "prettier";
import { describe, expect, it } from "vitest";
import { DASHBOARD_SCRIPT } from "../../../src/admin/dashboard/script.generated.ts";
import { currentDashboardScript, dashboardModule, dashboardScript } from "../../../tools/dashboard-script.ts";

describe("the dashboard's generated script", () => {
  it("is the typed source with its types stripped (else run `node tools/dashboard-script.ts`)", async () => {
    // Compared as the formatter lays both out: the module's value (however the module itself is
    // formatted), and the code it runs, so formatting the source alone does not make it stale.
    const laidOut = (script: string) => format(script, { parser: "babel" });
    const current = await laidOut(await currentDashboardScript());
    expect((await laidOut(DASHBOARD_SCRIPT)) === current, "src/admin/dashboard/script.generated.ts is stale: run `node tools/dashboard-script.ts`").toBe(true);
  });

  it("is a classic script with no TypeScript left, each line where the source has it", () => {
    const source = "import type { A } from './a.ts';\n(() => {\n  const n: number = 1 as number;\n  const f = (a: A): void => void a;\n})();\n";
    const script = dashboardScript(source);
    expect(script.split("\n")).toHaveLength(source.split("\n").length);
    expect(script).not.toMatch(/import|: number|as number|: A|: void/);
    expect(() => new Script(script)).not.toThrow();
    expect(() => new Script(DASHBOARD_SCRIPT)).not.toThrow();
  });

  it("is written as one string constant", async () => {
    const text = dashboardModule('a "quoted" </script> line\n');
    expect(text).toContain('export const DASHBOARD_SCRIPT: string = "a \\"quoted\\" </script> line\\n";');
  });
});
