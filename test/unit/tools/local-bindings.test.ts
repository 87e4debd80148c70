import { describe, expect, it } from "vitest";
import pkg from "../../../package.json" with { type: "json" };
import { LOCAL_BINDINGS } from "../../../tools/local-bindings.ts";

/** The `--var NAME:value` pairs of an npm script. */
const varsOf = (script: string) => Object.fromEntries([...script.matchAll(/--var (\w+):(\S+)/g)].map((m) => [m[1], m[2]]));

describe("local runs share one set of bindings", () => {
  it.each(["start", "start:eu"] as const)("npm run %s passes exactly LOCAL_BINDINGS", (script) => {
    expect(varsOf(pkg.scripts[script])).toEqual(LOCAL_BINDINGS);
  });
});
