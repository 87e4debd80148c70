import { describe, expect, it } from "vitest";
import data from "../../../../rules/hosted-api.json" with { type: "json" };
import { loadRuleTable, RuleTableError } from "../../../../src/core/rules/load.ts";
import { loaderProblems } from "./loader-problems.ts";

type Json = { table: string; rules: Array<Record<string, any>>; [k: string]: unknown };
const fresh = (): Json => structuredClone(data) as Json;

/** Loads a mutated copy of the real table and returns the problems it reports. */
function problemsOf(mutate: (file: Json) => void): readonly string[] {
  const file = fresh();
  mutate(file);
  return loaderProblems(file);
}

describe("loadRuleTable", () => {
  it("accepts the published table", () => {
    const table = loadRuleTable(data, "rules/hosted-api.json");
    expect(table.rules).toHaveLength(29);
    expect(table.byPrecedence[0]!.id).toBe(1);
    expect(table.byPrecedence.at(-1)!.id).toBe(29);
  });

  it("defaults mode to enforce", () => {
    const file = fresh();
    delete file.rules[11]!.mode;
    expect(loadRuleTable(file).rules[11]!.mode).toBe("enforce");
  });

  it("accepts shadow mode", () => {
    const file = fresh();
    file.rules[11]!.mode = "shadow";
    expect(loadRuleTable(file).rules[11]!.mode).toBe("shadow");
  });

  // One case per failure, each checking that the message names the row and the field.
  const cases: Array<[string, (f: Json) => void, RegExp]> = [
    ["unknown key in a row", (f) => (f.rules[4]!.burst = 3), /row 5 \("repos-key"\), field \(the row\): unknown key\(s\) "burst"/],
    ["unknown key in a limit", (f) => (f.rules[4]!.limits.eu.per = "s"), /row 5 .* field limits\.eu: unknown key\(s\) "per"/],
    ["unknown top-level key", (f) => (f.version = 2), /field \(top level\): unknown key\(s\) "version"/],
    ["zero count", (f) => (f.rules[11]!.limits.eu.count = 0), /row 12 \("runs-query-key"\), field limits\.eu\.count: must be a positive integer/],
    ["negative interval", (f) => (f.rules[11]!.limits.us.interval = -10), /row 12 .* field limits\.us\.interval: must be a positive integer/],
    ["fractional count", (f) => (f.rules[0]!.limits.us.count = 1.5), /row 1 .* field limits\.us\.count/],
    ["missing region", (f) => delete f.rules[2]!.limits.eu, /row 3 .* field limits\.eu/],
    ["duplicate id", (f) => (f.rules[5]!.id = 5), /row 5 \("repos-user"\), field id: duplicate id 5/],
    ["ids out of table order", (f) => ([f.rules[3], f.rules[4]] = [f.rules[4]!, f.rules[3]!]), /row 4 .* field id: ids must follow table order/],
    ["duplicate name", (f) => (f.rules[5]!.name = "repos-key"), /row 6 .* field name: duplicate name "repos-key"/],
    ["unknown identity", (f) => (f.rules[1]!.identity = "cookie"), /row 2 .* field identity/],
    ["unknown path kind", (f) => (f.rules[1]!.match[0].path.kind = "glob"), /row 2 .* field match\[0\]\.path\.kind/],
    ["unknown method", (f) => (f.rules[6]!.match[0].method = "FETCH"), /row 7 .* field match\[0\]\.method/],
    [
      "pattern without leading slash",
      (f) => (f.rules[1]!.match[0].path.pattern = "auth"),
      /row 2 .* field match\[0\]\.path\.pattern: "auth" must start with "\/"/,
    ],
    ["non-canonical pattern", (f) => (f.rules[1]!.match[0].path.pattern = "/auth/"), /row 2 .* not canonical/],
    ["placeholder outside a template", (f) => (f.rules[4]!.match[0].path.pattern = "/repos/{owner}"), /row 5 .* only allowed in kind "template"/],
    ["unsupported placeholder", (f) => (f.rules[22]!.match[0].path.pattern = "/runs/{id}"), /row 23 .* "\{id\}" is not a supported placeholder/],
    ["empty matcher in a specific row", (f) => (f.rules[6]!.match = [{}]), /row 7 .* field match\[0\]: a specific rule needs a method or a path/],
    [
      "unreachable duplicate row",
      (f) => (f.rules[12]!.identity = "api-key"),
      /row 13 .* field match\[0\]: unreachable, row 12 has the same matcher and identity/,
    ],
    ["no catch-all", (f) => (f.rules[28]!.tier = "default"), /exactly one rule must have tier "catch-all" \(found 0\)/],
    ["catch-all keyed by something other than IP", (f) => (f.rules[28]!.identity = "api-key"), /row 29 .* the catch-all must match every request/],
    ["no rules", (f) => (f.rules = []), /field rules/],
    ["an alias root that is not canonical", (f) => (f.aliasRoots = ["/api/v1/"]), /field aliasRoots\[0\]: .*not canonical/],
    ['"/" listed as an alias root', (f) => (f.aliasRoots = ["/"]), /field aliasRoots\[0\]: "\/" is always a root/],
    ["an alias root listed twice", (f) => (f.aliasRoots = ["/api/v1", "/api/v1"]), /field aliasRoots\[1\]: "\/api\/v1" is listed twice/],
    ["an alias root under another", (f) => (f.aliasRoots = ["/api", "/api/v1"]), /field aliasRoots\[1\]: "\/api\/v1" lies under alias root "\/api"/],
    ["a placeholder in an alias root", (f) => (f.aliasRoots = ["/api/{uuid}"]), /field aliasRoots\[0\]: .*placeholders/],
    [
      "an anchored pattern written under an alias root",
      (f) => (f.rules[22]!.match[0].path.pattern = "/api/v1/runs/{uuid}"),
      /row 23 .* field match\[0\]\.path\.pattern: "\/api\/v1\/runs\/\{uuid\}" starts with alias root "\/api\/v1"/,
    ],
  ];
  it.each(cases)("rejects %s, naming row and field", (_, mutate, expected) => {
    const problems = problemsOf(mutate);
    expect(problems.join("\n")).toMatch(expected);
  });

  it("reports every problem at once", () => {
    const problems = problemsOf((f) => {
      f.rules[0]!.limits.us.count = 0;
      f.rules[1]!.limits.eu.interval = 0;
    });
    expect(problems).toHaveLength(2);
  });

  it("rejects input that is not a rule file", () => {
    expect(() => loadRuleTable("not json at all")).toThrow(RuleTableError);
    expect(() => loadRuleTable(null)).toThrow(RuleTableError);
  });
});
