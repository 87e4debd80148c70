import { describe, expect, it } from "vitest";
import { matchesFilter, unknownOperator } from "../../../emulators/agent-server/store/filter.ts";

const doc = { author: "ann", stars: 4, tags: ["a", "b"], meta: { lang: "en", pages: 10 }, draft: false };

describe("store search filter", () => {
  it("matches plain values by JSON equality (objects field by field, lists item by item)", () => {
    expect(matchesFilter(doc, { author: "ann" })).toBe(true);
    expect(matchesFilter(doc, { author: "bob" })).toBe(false);
    expect(matchesFilter(doc, { meta: { lang: "en" } })).toBe(true);
    expect(matchesFilter(doc, { tags: ["a", "b"] })).toBe(true);
    expect(matchesFilter(doc, { tags: ["a"] })).toBe(false);
    expect(matchesFilter(doc, { draft: 0 })).toBe(false);
    expect(matchesFilter(doc, { missing: null })).toBe(false);
    expect(matchesFilter(doc, {})).toBe(true);
  });

  it("applies $eq, $ne, $gt, $gte, $lt and $lte; ordering only on numbers", () => {
    expect(matchesFilter(doc, { stars: { $gte: 4, $lt: 5 } })).toBe(true);
    expect(matchesFilter(doc, { stars: { $gt: 4 } })).toBe(false);
    expect(matchesFilter(doc, { stars: { $lte: 4 }, author: { $ne: "bob" } })).toBe(true);
    expect(matchesFilter(doc, { author: { $eq: "ann" } })).toBe(true);
    expect(matchesFilter(doc, { meta: { pages: { $lt: 11 } } })).toBe(true);
    expect(matchesFilter(doc, { author: { $gt: 1 } })).toBe(false);
  });

  it("finds operators it does not know, with their path", () => {
    expect(unknownOperator({ stars: { $gte: 1 } })).toBeUndefined();
    expect(unknownOperator({ stars: { $in: [1] } })).toEqual({ path: ["stars", "$in"], operator: "$in" });
    expect(unknownOperator({ meta: { pages: { $regex: "x" } } })).toEqual({ path: ["meta", "pages", "$regex"], operator: "$regex" });
  });
});
