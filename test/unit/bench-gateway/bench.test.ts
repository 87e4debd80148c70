import { describe, expect, it } from "vitest";
import { orderFor, shapeGroups } from "../../../bench/gateway/bench.ts";
import { SHAPE_NAMES } from "../../../bench/gateway/shape-names.ts";

describe("orderFor", () => {
  it("rotates the targets each round, so each runs first, middle and last in turn", () => {
    const targets = ["bare", "gateway", "peer"];
    expect(orderFor(targets, 1)).toEqual(["bare", "gateway", "peer"]);
    expect(orderFor(targets, 2)).toEqual(["gateway", "peer", "bare"]);
    expect(orderFor(targets, 3)).toEqual(["peer", "bare", "gateway"]);
    expect(orderFor(targets, 4)).toEqual(["bare", "gateway", "peer"]);
  });
});

describe("shapeGroups", () => {
  it("runs warm keys right after new keys on the same target, every other shape on its own", () => {
    expect(shapeGroups([...SHAPE_NAMES])).toEqual([["new-keys", "warm-keys"], ["one-key"], ["deny-flood"], ["new-ips"], ["hot-key"]]);
    expect(shapeGroups(["hot-key", "new-keys"])).toEqual([["new-keys"], ["hot-key"]]);
  });
});
