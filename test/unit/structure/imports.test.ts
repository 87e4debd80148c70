import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { REPO_ROOT as ROOT } from "../support/paths.ts";
import { execFileAsync } from "../support/processes.ts";

/*
 * The import structure (.oxlintrc.json, docs/layout.md): no cycle, type imports included, and each
 * layer imports only the layers below it. Checked with oxlint's import/no-cycle and
 * no-restricted-imports, over the repository, then over a small tree that breaks each rule, so a
 * config that stopped biting fails here too.
 */

const OXLINT = join(ROOT, "node_modules/.bin/oxlint");

interface Finding {
  readonly code: string;
  readonly filename: string;
  readonly message: string;
  readonly help?: string;
}

async function lint(cwd: string): Promise<Finding[]> {
  // oxlint exits 1 when it finds something; its JSON report is on stdout either way.
  const run = execFileAsync(OXLINT, ["--format", "json"], { cwd, maxBuffer: 64 * 1024 * 1024 }).catch((error: { stdout?: string }) => error);
  const { stdout } = await run;
  return (JSON.parse(stdout ?? "") as { diagnostics: Finding[] }).diagnostics;
}

const scratch = mkdtempSync(join(tmpdir(), "tollgate-imports-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function tree(files: Record<string, string>): string {
  const dir = mkdtempSync(join(scratch, "tree-"));
  copyFileSync(join(ROOT, ".oxlintrc.json"), join(dir, ".oxlintrc.json"));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

const summary = (findings: readonly Finding[]) => findings.map((f) => `${f.filename}: ${f.code} ${f.message}`).sort();

describe("the import structure", () => {
  it("has no cycle and no import against the layers, across src, emulators, tools, bench and test", async () => {
    expect(summary(await lint(ROOT))).toEqual([]);
  }, 120_000);

  it("catches a cycle, type imports included", async () => {
    const found = await lint(
      tree({
        "src/core/rules/a.ts": 'import type { B } from "./b.ts";\nexport interface A { b?: B }\n',
        "src/core/rules/b.ts": 'import type { A } from "./a.ts";\nexport interface B { a?: A }\n',
      }),
    );
    expect(summary(found)).toEqual([
      "src/core/rules/a.ts: import(no-cycle) Dependency cycle detected",
      "src/core/rules/b.ts: import(no-cycle) Dependency cycle detected",
    ]);
  }, 60_000);

  it("catches what oxlint's correctness rules catch: an unused import, an expression with no effect", async () => {
    const found = await lint(
      tree({
        "src/core/rules/a.ts": 'import { b } from "./b.ts";\nexport const a = 1;\n',
        "src/core/rules/b.ts": "export const b = 2;\nexport function c(x: number): void {\n  x === b;\n}\n",
      }),
    );
    expect(summary(found)).toEqual([
      "src/core/rules/a.ts: eslint(no-unused-vars) Identifier 'b' is imported but never used.",
      "src/core/rules/b.ts: eslint(no-unused-expressions) Expected expression to be used",
    ]);
  }, 60_000);

  it("catches each layer importing one above it, the pure core importing the runtime, and admin reaching past the gateway's public surface", async () => {
    const found = await lint(
      tree({
        "src/admin/page.ts": "export const page = 1;\n",
        "src/gateway/app.ts": 'import { page } from "../admin/page.ts";\nexport const app = page;\n',
        "src/durable-objects/object.ts": 'import { page } from "../admin/page.ts";\nexport const object = page;\n',
        "src/core/limiter/window.ts": 'import { DurableObject } from "cloudflare:workers";\nexport const window = DurableObject;\n',
        "src/core/rules/load.ts": 'import { Hono } from "hono";\nimport { app } from "../../gateway/app.ts";\nexport const load = [Hono, app];\n',
        "src/http/problem.ts": 'import { load } from "../core/rules/load.ts";\nexport const problem = load;\n',
        "src/admin/entry.ts": 'import { createWorker } from "../worker.ts";\nexport const entry = createWorker;\n',
        "src/worker.ts": "export const createWorker = 1;\n",
        "src/gateway/runtime.ts": "export const runtime = 1;\n",
        "src/gateway/overrides/cache.ts": "export const cache = 1;\n",
        "src/admin/routes/inspect.ts":
          'import { app } from "../../gateway/app.ts";\nimport { cache } from "../../gateway/overrides/cache.ts";\nimport { runtime } from "../../gateway/runtime.ts";\nexport const inspect = [app, cache, runtime];\n',
        "src/core/overrides/seed.ts": 'import { seed } from "../../../emulators/control-plane/seed.ts";\nexport const again = seed;\n',
        "emulators/control-plane/seed.ts":
          'import { app } from "../../src/gateway/app.ts";\nimport { problem } from "../../src/http/problem.ts";\nexport const seed = [app, problem];\n',
      }),
    );
    expect(found.every((f) => f.code === "eslint(no-restricted-imports)")).toBe(true);
    expect(found.map((f) => `${f.filename} ${f.message}`).sort()).toEqual([
      "emulators/control-plane/seed.ts '../../src/gateway/app.ts' import is restricted from being used by a pattern.",
      "src/admin/entry.ts '../worker.ts' import is restricted from being used by a pattern.",
      "src/admin/routes/inspect.ts '../../gateway/app.ts' import is restricted from being used by a pattern.",
      "src/admin/routes/inspect.ts '../../gateway/overrides/cache.ts' import is restricted from being used by a pattern.",
      "src/core/limiter/window.ts 'cloudflare:workers' import is restricted from being used by a pattern.",
      "src/core/overrides/seed.ts '../../../emulators/control-plane/seed.ts' import is restricted from being used by a pattern.",
      "src/core/rules/load.ts '../../gateway/app.ts' import is restricted from being used by a pattern.",
      "src/core/rules/load.ts 'hono' import is restricted from being used by a pattern.",
      "src/durable-objects/object.ts '../admin/page.ts' import is restricted from being used by a pattern.",
      "src/gateway/app.ts '../admin/page.ts' import is restricted from being used by a pattern.",
      "src/http/problem.ts '../core/rules/load.ts' import is restricted from being used by a pattern.",
    ]);
  }, 60_000);
});
