import { describe, expect, it } from "vitest";
import { GiveBackRoster } from "../../../../src/core/limiter/index.ts";

describe("GiveBackRoster", () => {
  it("lists the give-backs due at one object only, and forgets counters that hold nothing any more", () => {
    const roster = new GiveBackRoster<string>();
    roster.add("o1", "a", "give back a");
    roster.add("o1", "b", "give back b");
    roster.add("o1", "c", "give back c");
    roster.add("o2", "d", "give back d");
    const held = new Set(["a", "b", "d"]);
    // a is due, b holds a lease not due yet, c holds nothing (given back already): dropped.
    expect(
      roster.due(
        "o1",
        (counter) => counter === "a",
        (counter) => held.has(counter),
      ),
    ).toEqual(["give back a"]);
    expect(
      roster.due(
        "o1",
        () => true,
        () => true,
      ),
    ).toEqual(["give back a", "give back b"]);
    expect(
      roster.due(
        "o2",
        () => true,
        () => true,
      ),
    ).toEqual(["give back d"]);
    // Dropped by the counter's own give-back once it holds nothing.
    roster.drop("o2", "d");
    expect(
      roster.due(
        "o2",
        () => true,
        () => true,
      ),
    ).toEqual([]);
    // A counter added again (a new lease) replaces its item.
    roster.add("o1", "a", "give back a, renewed");
    expect(
      roster.due(
        "o1",
        () => true,
        () => true,
      ),
    ).toEqual(["give back a, renewed", "give back b"]);
  });
});
