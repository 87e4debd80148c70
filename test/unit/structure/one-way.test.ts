import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT as ROOT } from "../support/paths.ts";

/*
 * A cross-cutting job is written once (issue 35, docs/layout.md "Layers"): the gateway's Durable
 * Object calls reach their region's jurisdiction through src/gateway/objects.ts, and every call
 * it bounds in time goes through src/gateway/deadline.ts; every error answer is a GatewayError made a
 * response by src/http/render-error.ts. Checked over the product's own source.
 */

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

/** The files of src/ whose code (comments aside) matches `pattern`. */
function writing(pattern: RegExp): string[] {
  return sources(join(ROOT, "src"))
    .filter((path) => pattern.test(readFileSync(path, "utf8").replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, "")))
    .map((path) => relative(ROOT, path))
    .sort();
}

describe("one way to do each thing", () => {
  it("chooses a Durable Object jurisdiction in one place", () => {
    expect(writing(/\.jurisdiction\(/)).toEqual(["src/gateway/objects.ts"]);
  });

  it("races a call against a timer in one place", () => {
    // withDeadline settles one promise from the call or its timer, whichever comes first; nothing
    // else races a call against a timer of its own.
    expect(writing(/Promise\.race\(/)).toEqual([]);
    expect(writing(/function withDeadline\b/)).toEqual(["src/gateway/deadline.ts"]);
  });

  it("makes an error response in one place: every error is a GatewayError, rendered by src/http/render-error.ts", () => {
    expect(writing(/HTTPException\(|problemResponse\(|json\(\{ detail\b/)).toEqual(["src/http/problem.ts", "src/http/render-error.ts"]);
  });

  it("checks the settings where an isolate makes its region runtime, which holds them: no signature passes them on, no step reaches the isolate or the bindings", () => {
    expect(writing(/\bgatewaySettings\(/)).toEqual(["src/gateway/isolate.ts"]);
    expect(writing(/\bsettings: GatewaySettings\b/)).toEqual(["src/gateway/region-runtime.ts"]);
    // The request path's steps take the runtime from their context (c.var.runtime); the handler
    // makes it from the env, and the local edge's guard reads its variable before any of them.
    const reachingAround = writing(/\bc\.var\.isolate\b|\bc\.env\b/).filter((path) => path.startsWith("src/gateway/"));
    expect(reachingAround).toEqual(["src/gateway/app.ts", "src/gateway/local-edge-guard.ts"]);
  });

  it("says a treatment's word in one place (TREATMENT_WORDS)", () => {
    expect(writing(/treatment === "(count|block|exempt)" \? "/)).toEqual([]);
    expect(writing(/"counted"/)).toEqual(["src/core/overrides/resolve.ts"]);
  });

  it("names a decision's parts one way on its way out (docs/glossary.md): window answer, verdict, counter answer, decision", () => {
    // A declaration, not an import's `type Name`.
    const declaring = (name: string) => writing(new RegExp(`\\binterface ${name}\\b|\\btype ${name}\\s*=`));
    expect(declaring("WindowAnswer")).toEqual(["src/core/limiter/types.ts"]);
    expect(declaring("Verdict")).toEqual(["src/core/limiter/types.ts"]);
    expect(declaring("CounterAnswer")).toEqual(["src/core/limiter/counter.ts"]);
    expect(declaring("Decision")).toEqual(["src/gateway/decision-log.ts"]);
    // The names they had before, one thing called several ways.
    expect(writing(/\b(Decided|BatchAnswer|Counted|DecisionRecord)\b/)).toEqual([]);
  });
});
