import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { nestsDeeperThan } from "../../../emulators/shared/json-depth.ts";
import { depthOf } from "../../support/nested-json.ts";

describe("nestsDeeperThan", () => {
  it("counts arrays and objects open at once", () => {
    expect(nestsDeeperThan("1", 0)).toBe(false);
    expect(nestsDeeperThan("{}", 0)).toBe(true);
    expect(nestsDeeperThan("{}", 1)).toBe(false);
    expect(nestsDeeperThan('{"a": [[1], [2]], "b": {}}', 3)).toBe(false);
    expect(nestsDeeperThan('{"a": [[1], [2]], "b": {}}', 2)).toBe(true);
  });

  it("skips brackets inside strings, including after escaped quotes and backslashes", () => {
    expect(nestsDeeperThan('{"a": "[[[[{{{{"}', 1)).toBe(false);
    expect(nestsDeeperThan('["\\"[[[[", "\\\\"]', 1)).toBe(false);
    expect(nestsDeeperThan('["\\\\", [[]]]', 2)).toBe(true);
  });

  it("counts unbalanced text conservatively: unclosed brackets count, stray closers earn no credit", () => {
    expect(nestsDeeperThan("[".repeat(5000), 1000)).toBe(true);
    expect(nestsDeeperThan("]]]][[", 1)).toBe(true);
    expect(nestsDeeperThan("]]]][[", 2)).toBe(false);
  });

  it("handles depths far beyond any stack without recursion", () => {
    const deep = "[".repeat(1_000_000) + "]".repeat(1_000_000);
    expect(nestsDeeperThan(deep, 999_999)).toBe(true);
    expect(nestsDeeperThan(deep, 1_000_000)).toBe(false);
  });

  it("agrees with the depth of the parsed value for any JSON text", () => {
    fc.assert(
      fc.property(fc.json({ depthSize: "large" }), fc.nat(12), (text, limit) => {
        expect(nestsDeeperThan(text, limit)).toBe(depthOf(JSON.parse(text)) > limit);
      }),
      { seed: 8, numRuns: 500 },
    );
  });
});
