import { describe, expect, it } from "vitest";
import { BadArgument } from "../../../../tools/kit/args.ts";
import { MIXES, parseMixes } from "../../../../bench/edge/mixes.ts";

const mix = (name: string) => MIXES.find((m) => m.name === name)!;

describe("mixes", () => {
  it("a heavy key at 50% of 1000 per 10 s is paced every 20 ms, round robin over K", () => {
    const s = mix("heavy-25@50").schedule(16, 1000, 10_000, 40);
    expect(s).toHaveLength(40);
    expect(s[1]!.atMs - s[0]!.atMs).toBeCloseTo(20, 10);
    expect(s.map((x) => x.isolate).slice(14, 18)).toEqual([14, 15, 0, 1]);
    expect(new Set(s.map((x) => x.key))).toEqual(new Set([0]));
  });

  it("many keys at low rates keep each key on one isolate", () => {
    const s = mix("many-low").schedule(16, 1000, 10_000, 400);
    const isolatesOf = new Map<number, Set<number>>();
    for (const x of s) isolatesOf.set(x.key, (isolatesOf.get(x.key) ?? new Set()).add(x.isolate));
    expect(isolatesOf.size).toBe(100);
    expect([...isolatesOf.values()].every((set) => set.size === 1)).toBe(true);
  });

  it("a burst sends at most twice the count, all at once", () => {
    const s = mix("burst-25").schedule(4, 1000, 10_000, 5000);
    expect(s).toHaveLength(2000);
    expect(s.every((x) => x.atMs === 0)).toBe(true);
  });

  it("names: all, a list, and a refusal naming the option", () => {
    expect(parseMixes("all")).toHaveLength(MIXES.length);
    expect(parseMixes("heavy-11@90,burst-25").map((m) => m.name)).toEqual(["heavy-11@90", "burst-25"]);
    expect(() => parseMixes("nope")).toThrow(BadArgument);
  });
});
