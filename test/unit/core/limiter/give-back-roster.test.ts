import { describe, expect, it } from "vitest";
import { GiveBackRoster } from "../../../../src/core/limiter/index.ts";

const always = () => true;

describe("GiveBackRoster", () => {
  it("lists the give-backs due at one object only, and forgets counters that hold nothing any more", () => {
    const roster = new GiveBackRoster<string>();
    roster.add("o1", "a", "give back a", 100);
    roster.add("o1", "b", "give back b", 100);
    roster.add("o1", "c", "give back c", 100);
    roster.add("o2", "d", "give back d", 100);
    const held = new Set(["a", "b", "d"]);
    // a is due, b holds a lease not owed after all, c holds nothing (given back already): dropped.
    expect(
      roster.due(
        "o1",
        100,
        (counter) => counter === "a",
        (counter) => held.has(counter),
      ),
    ).toEqual(["give back a"]);
    // Each entry is looked at once: a and b wait for their next lease.
    expect(roster.due("o1", 200, always, always)).toEqual([]);
    expect(roster.due("o2", 100, always, always)).toEqual(["give back d"]);
    // Dropped by the counter's own give-back once it holds nothing.
    roster.drop("o2", "d");
    roster.add("o2", "e", "give back e", 300);
    roster.drop("o2", "e");
    expect(roster.due("o2", 400, always, always)).toEqual([]);
    // A counter added again (a new lease) replaces its item and its time.
    roster.add("o1", "a", "give back a, renewed", 500);
    roster.add("o1", "b", "give back b, renewed", 300);
    expect(roster.due("o1", 400, always, always)).toEqual(["give back b, renewed"]);
    expect(roster.due("o1", 500, always, always)).toEqual(["give back a, renewed"]);
  });

  it("looks at no counter before its time: a call to an object with many leases here asks about only those that came due", () => {
    const roster = new GiveBackRoster<number>();
    for (let i = 0; i < 1000; i++) roster.add("o", `k${i}`, i, 10_000 + i);
    const asked: string[] = [];
    const due = (counter: string) => (asked.push(counter), true);
    expect(roster.due("o", 9_999, due, always)).toEqual([]);
    expect(asked).toEqual([]);
    expect(roster.due("o", 10_002, due, always)).toEqual([0, 1, 2]);
    expect(asked).toEqual(["k0", "k1", "k2"]);
    // An entry replaced before its time is skipped without asking.
    roster.add("o", "k3", 3_000, 20_000);
    asked.length = 0;
    expect(roster.due("o", 10_004, due, always)).toEqual([4]);
    expect(asked).toEqual(["k4"]);
  });
});
