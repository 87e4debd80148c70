import { describe, expect, it } from "vitest";
import { listNamespaces, matchesListing, namespaceProblem, startsWith } from "../../../emulators/agent-server/store/namespace.ts";

const ALL = [["users", "u1", "memories"], ["users", "u1", "profile"], ["users", "u2", "memories"], ["docs", "a"], ["docs"]];
const list = (query: Partial<Parameters<typeof listNamespaces>[1]>) => listNamespaces(ALL, { limit: 100, offset: 0, ...query });

describe("store namespaces", () => {
  it("refuse empty labels and labels with a period", () => {
    expect(namespaceProblem(["a", "b"])).toBeUndefined();
    expect(namespaceProblem(["a", ""])?.[0]).toBe(1);
    expect(namespaceProblem(["a.b"])).toEqual([0, 'Namespace label "a.b" must be a non-empty string without periods']);
  });

  it("match prefixes label by label", () => {
    expect(startsWith(["users", "u1"], ["users"])).toBe(true);
    expect(startsWith(["usersx"], ["users"])).toBe(false);
    expect(startsWith(["users"], ["users", "u1"])).toBe(false);
    expect(startsWith(["users"], [])).toBe(true);
  });

  it("list sorted by their joined text, filtered by prefix and suffix with * wildcards", () => {
    expect(list({})).toEqual([["docs"], ["docs", "a"], ...ALL.slice(0, 3)]);
    expect(list({ prefix: ["users"] })).toEqual(ALL.slice(0, 3));
    expect(list({ suffix: ["memories"] })).toEqual([ALL[0], ALL[2]]);
    expect(list({ prefix: ["users", "*", "profile"] })).toEqual([ALL[1]]);
    expect(list({ prefix: ["*"], suffix: ["a"] })).toEqual([["docs", "a"]]);
    expect(matchesListing(["x"], undefined, ["x", "y"])).toBe(false);
  });

  it("cut to max_depth and deduplicate, then page", () => {
    expect(list({ maxDepth: 2 })).toEqual([["docs"], ["docs", "a"], ["users", "u1"], ["users", "u2"]]);
    expect(list({ maxDepth: 1 })).toEqual([["docs"], ["users"]]);
    expect(list({ maxDepth: 2, limit: 2, offset: 1 })).toEqual([
      ["docs", "a"],
      ["users", "u1"],
    ]);
  });
});
