import { describe, expect, test } from "vitest";
import { SlidingWindow } from "../../../../src/core/limiter/sliding-window.ts";

describe("SlidingWindow edge cases", () => {
  test("count = 1: one admission per interval, retryAt exactly at expiry", () => {
    const w = new SlidingWindow({ count: 1, intervalMs: 1000 });
    expect(w.hit(5000)).toEqual({ allowed: true, limit: 1, remaining: 0, resetAt: 6000, retryAt: 6000 });
    expect(w.hit(5000)).toEqual({ allowed: false, limit: 1, remaining: 0, resetAt: 6000, retryAt: 6000 });
    expect(w.hit(5999)).toEqual({ allowed: false, limit: 1, remaining: 0, resetAt: 6000, retryAt: 6000 });
    expect(w.hit(6000)).toEqual({ allowed: true, limit: 1, remaining: 0, resetAt: 7000, retryAt: 7000 });
  });

  test("intervalMs = 1: requests in the same millisecond share the window, the next millisecond is fresh", () => {
    const w = new SlidingWindow({ count: 2, intervalMs: 1 });
    expect(w.hit(10).allowed).toBe(true);
    expect(w.hit(10).allowed).toBe(true);
    expect(w.hit(10)).toMatchObject({ allowed: false, retryAt: 11 });
    expect(w.hit(11)).toMatchObject({ allowed: true, remaining: 1, retryAt: 11 });
  });

  test("an empty window: peek is allowed and leaves it empty", () => {
    const w = new SlidingWindow({ count: 3, intervalMs: 100 });
    expect(w.peek(0)).toEqual({ allowed: true, limit: 3, remaining: 2, resetAt: 100, retryAt: 0 });
    expect(w.isIdle(0)).toBe(true);
    expect(w.size(0)).toBe(0);
    expect(w.newestAdmission()).toBeUndefined();
  });

  test("setLimit shrinking keeps every entry, so growing back later lets nothing extra through", () => {
    const w = new SlidingWindow({ count: 10, intervalMs: 1000 });
    for (let t = 0; t < 10; t++) w.hit(t);
    w.setLimit({ count: 3, intervalMs: 1000 });
    expect(w.size(10)).toBe(10);
    expect(w.capacity).toBeLessThanOrEqual(10);
    // Room opens when only 2 remain: when the entry at 7 expires.
    expect(w.hit(10)).toEqual({ allowed: false, limit: 3, remaining: 0, resetAt: 1007, retryAt: 1007 });
    expect(w.hit(1007)).toMatchObject({ allowed: true, remaining: 0, retryAt: 1008 });
    expect(w.newestAdmission()).toBe(1007);
  });

  test("setLimit shrinking then growing back counts what the window really holds", () => {
    const w = new SlidingWindow({ count: 15, intervalMs: 10_000 });
    for (let i = 0; i < 10; i++) w.hit(0);
    w.setLimit({ count: 5, intervalMs: 10_000 });
    expect(w.hit(1)).toMatchObject({ allowed: false, remaining: 0, retryAt: 10_000 });
    w.setLimit({ count: 12, intervalMs: 10_000 });
    expect(w.hit(2).allowed).toBe(true);
    expect(w.hit(2)).toMatchObject({ allowed: true, remaining: 0 });
    expect(w.hit(2).allowed).toBe(false);
  });

  test("setLimit growing admits more right away and can grow storage up to the new count", () => {
    const w = new SlidingWindow({ count: 2, intervalMs: 1000 });
    w.hit(0);
    w.hit(0);
    expect(w.hit(1).allowed).toBe(false);
    w.setLimit({ count: 5, intervalMs: 1000 });
    expect(w.hit(1)).toMatchObject({ allowed: true, limit: 5, remaining: 2 });
    expect(w.hit(1).allowed).toBe(true);
    expect(w.hit(1).allowed).toBe(true);
    expect(w.hit(1)).toMatchObject({ allowed: false, retryAt: 1000 });
    expect(w.size(1)).toBe(5);
    expect(w.capacity).toBeLessThanOrEqual(5);
  });

  test("setLimit changing intervalMs applies to entries already held", () => {
    const w = new SlidingWindow({ count: 2, intervalMs: 1000 });
    w.hit(0);
    w.hit(500);
    w.setLimit({ count: 2, intervalMs: 100 });
    expect(w.size(550)).toBe(1);
    expect(w.hit(550)).toMatchObject({ allowed: true, remaining: 0, resetAt: 600, retryAt: 600 });
  });

  test("seed keeps every timestamp, past count too, in any order: the window denies until enough expire", () => {
    const w = new SlidingWindow({ count: 3, intervalMs: 100 });
    w.seed([50, 10, 90, 30, 70]);
    expect(w.size(90)).toBe(5);
    expect(w.newestAdmission()).toBe(90);
    // 5 held, 3 allowed: room opens when the third oldest (50) expires.
    expect(w.hit(90)).toEqual({ allowed: false, limit: 3, remaining: 0, resetAt: 150, retryAt: 150 });
    expect(w.hit(150)).toMatchObject({ allowed: true, remaining: 0, retryAt: 170 });
    // Recording trims what left the window: the buffer stays at count.
    expect(w.capacity).toBeLessThanOrEqual(8);
    expect(w.admissions(150)).toEqual([70, 90, 150]);
  });

  test("a lengthened interval is decided on the entries kept beyond the old window, never on less", () => {
    const w = new SlidingWindow({ count: 3, intervalMs: 100 });
    for (const t of [0, 10, 20]) w.hit(t);
    // Out of the 100 ms window, but the newest count are kept.
    expect(w.hit(150).allowed).toBe(true);
    w.setLimit({ count: 3, intervalMs: 1000 }, 160);
    // 10, 20 and 150 are in a 1 s window: full (0 was forgotten, and is older than all three).
    expect(w.hit(160)).toMatchObject({ allowed: false, retryAt: 1010 });
  });

  test("a lengthened interval and a larger count assume the forgotten span was full, never under-count", () => {
    const w = new SlidingWindow({ count: 2, intervalMs: 100 });
    for (const t of [0, 50, 200, 250]) w.hit(t);
    // 0 and 50 were forgotten to keep the buffer at 2; under 10 per 1 s they would still count.
    w.setLimit({ count: 10, intervalMs: 1000 }, 260);
    let admitted = 0;
    while (w.hit(260).allowed) admitted++;
    expect(admitted).toBeLessThanOrEqual(6);
  });

  test("seed merges with entries already held", () => {
    const w = new SlidingWindow({ count: 4, intervalMs: 100 });
    w.hit(20);
    w.seed([10, 30]);
    expect(w.size(30)).toBe(3);
    expect(w.peek(30)).toMatchObject({ allowed: true, remaining: 0, resetAt: 110 });
  });

  test("an admission earlier than the newest seeded timestamp is recorded at its own time, in order", () => {
    const w = new SlidingWindow({ count: 2, intervalMs: 100 });
    w.seed([500]);
    expect(w.hit(450)).toMatchObject({ allowed: true, remaining: 0, resetAt: 550 });
    expect(w.newestAdmission()).toBe(500);
    expect(w.admissions(450)).toEqual([450, 500]);
    expect(w.size(549)).toBe(2);
    expect(w.size(550)).toBe(1);
    expect(w.isIdle(600)).toBe(true);
    // Full: the unit frees when the older entry (450) expires.
    expect(w.hit(450)).toMatchObject({ allowed: false, resetAt: 550, retryAt: 550 });
  });

  test("units reserved ahead of now count until they expire, and a release gives them back", () => {
    const w = new SlidingWindow({ count: 5, intervalMs: 100 });
    w.hit(10);
    w.reserve(60, 3, 20);
    expect(w.hit(20)).toMatchObject({ allowed: true, remaining: 0 });
    expect(w.admissions(20)).toEqual([10, 20, 60, 60, 60]);
    expect(w.hit(30)).toMatchObject({ allowed: false, retryAt: 110 });
    // 10 and 20 expire at 110 and 120; the reserved units only at 160.
    expect(w.size(125)).toBe(3);
    expect(w.size(160)).toBe(0);
    expect(w.release(60, 2)).toBe(2);
    expect(w.admissions(30)).toEqual([10, 20, 60]);
    expect(w.release(60, 5)).toBe(1);
    expect(w.release(60, 1)).toBe(0);
    expect(w.hit(30)).toMatchObject({ allowed: true, remaining: 2 });
  });

  test("peek at a later time does not forget entries an earlier peek still needs", () => {
    const w = new SlidingWindow({ count: 1, intervalMs: 100 });
    w.hit(0);
    expect(w.peek(100).allowed).toBe(true);
    expect(w.peek(99).allowed).toBe(false);
    expect(w.size(99)).toBe(1);
  });

  test("constructor and setLimit reject non-positive-integer limits with a clear error", () => {
    const bad = [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 60];
    for (const count of bad) {
      expect(() => new SlidingWindow({ count, intervalMs: 1000 })).toThrow(/limit\.count must be a positive integer/);
    }
    for (const intervalMs of bad) {
      expect(() => new SlidingWindow({ count: 10, intervalMs })).toThrow(/limit\.intervalMs must be a positive integer/);
    }
    const w = new SlidingWindow({ count: 1, intervalMs: 1 });
    expect(() => w.setLimit({ count: 0, intervalMs: 1 })).toThrow(RangeError);
    expect(w.hit(0).limit).toBe(1);
  });

  test("non-finite times are rejected instead of corrupting the buffer", () => {
    const w = new SlidingWindow({ count: 2, intervalMs: 10 });
    expect(() => w.hit(Number.NaN)).toThrow(RangeError);
    expect(() => w.peek(Number.POSITIVE_INFINITY)).toThrow(RangeError);
    expect(() => w.seed([1, Number.NaN])).toThrow(RangeError);
    expect(w.isIdle(0)).toBe(true);
  });
});
