import { describe, expect, it } from "vitest";
import { LocalWindows, type Windowed } from "../../../../src/core/limiter/local-windows.ts";
import { SlidingWindow } from "../../../../src/core/limiter/sliding-window.ts";
import type { Limit } from "../../../../src/core/limiter/types.ts";

const LIMIT = { count: 3, intervalMs: 10_000 };
const T0 = 1_800_000_000_000;
const plain = (limit: Limit): Windowed => ({ window: new SlidingWindow(limit) });

/** A hard bound of `max` keys (the admin throttle's kind). */
const hard = (max: number) => new LocalWindows<Windowed>({ max, open: (_key, limit) => plain(limit) });

describe("LocalWindows: one sliding window per key, bounded in number", () => {
  it("hit counts on the key's own window: count per window, other keys unaffected", () => {
    const windows = hard(10);
    expect([1, 2, 3, 4].map(() => windows.hit("a", LIMIT, T0).allowed)).toEqual([true, true, true, false]);
    expect(windows.hit("b", LIMIT, T0).allowed).toBe(true);
    expect(windows.hit("a", LIMIT, T0 + LIMIT.intervalMs).allowed).toBe(true);
  });

  it("peek answers what hit would, and counts nothing", () => {
    const windows = hard(10);
    windows.hit("a", LIMIT, T0);
    windows.hit("a", LIMIT, T0 + 1);
    const peeked = windows.peek("a", LIMIT, T0 + 2);
    expect(peeked).toEqual({ allowed: true, limit: 3, remaining: 0, resetAt: T0 + LIMIT.intervalMs, retryAt: T0 + LIMIT.intervalMs });
    expect(windows.peek("a", LIMIT, T0 + 2)).toEqual(peeked);
    expect(windows.hit("a", LIMIT, T0 + 2)).toEqual(peeked);
    // Full now: peek says when a unit frees, and still counts nothing.
    expect(windows.peek("a", LIMIT, T0 + 3)).toMatchObject({ allowed: false, remaining: 0, retryAt: T0 + LIMIT.intervalMs });
    expect(windows.get("a")!.window.size(T0 + 3)).toBe(3);
  });

  it("peek of a key not held reads the window open would give it, and keeps none", () => {
    const opened: string[] = [];
    // Seeded, as LocalFallback opens a window from what the object last said.
    const windows = new LocalWindows<Windowed>({
      max: 10,
      open: (key, limit) => {
        opened.push(key);
        const window = new SlidingWindow(limit);
        window.seed([T0, T0, T0]);
        return { window };
      },
    });
    expect(windows.peek("a", LIMIT, T0 + 1)).toMatchObject({ allowed: false, retryAt: T0 + LIMIT.intervalMs });
    expect(windows.has("a")).toBe(false);
    expect(windows.size).toBe(0);
    expect(windows.hit("a", LIMIT, T0 + 1).allowed).toBe(false);
    // Opened once for the peek (not kept), once for the hit (kept); not again.
    windows.hit("a", LIMIT, T0 + LIMIT.intervalMs);
    expect(opened).toEqual(["a", "a"]);
  });

  it("entry opens a key once and keeps what its owner holds beside the window; get and delete neither open nor count", () => {
    const windows = new LocalWindows<Windowed & { notes: string[] }>({ max: 10, open: (_key, limit) => ({ ...plain(limit), notes: [] }) });
    windows.entry("a", LIMIT, T0).notes.push("kept");
    expect(windows.entry("a", LIMIT, T0).notes).toEqual(["kept"]);
    expect(windows.get("b")).toBeUndefined();
    expect(windows.has("b")).toBe(false);
    windows.delete("a");
    expect(windows.has("a")).toBe(false);
    expect(windows.entry("a", LIMIT, T0).notes).toEqual([]);
  });

  it("follows the limit it is given", () => {
    const windows = hard(10);
    for (let i = 0; i < 3; i++) windows.hit("a", LIMIT, T0);
    expect(windows.peek("a", { count: 5, intervalMs: LIMIT.intervalMs }, T0).allowed).toBe(true);
    expect(windows.hit("a", { count: 2, intervalMs: LIMIT.intervalMs }, T0)).toMatchObject({ allowed: false, limit: 2 });
  });

  it("under a hard bound drops the least recently used key, whatever its window holds; a hit or a peek is a use", () => {
    const windows = hard(3);
    windows.hit("a", LIMIT, T0);
    windows.hit("b", LIMIT, T0);
    windows.hit("c", LIMIT, T0);
    windows.peek("a", LIMIT, T0);
    windows.hit("b", LIMIT, T0);
    // c was used least recently: it goes, though it holds an admission in its window.
    windows.hit("d", LIMIT, T0);
    expect(windows.size).toBe(3);
    expect(["a", "b", "c", "d"].filter((key) => windows.has(key))).toEqual(["a", "b", "d"]);
    // A peek of a key not held opens nothing, so it makes no room either.
    windows.peek("e", LIMIT, T0);
    expect(["a", "b", "d"].every((key) => windows.has(key))).toBe(true);
  });

  it("with keep, drops past the bound only what keep lets go, so memory follows what must stay", () => {
    const windows = new LocalWindows<Windowed>({ max: 2, open: (_key, limit) => plain(limit), keep: (entry, now) => !entry.window.isIdle(now) });
    windows.hit("a", LIMIT, T0);
    windows.hit("b", LIMIT, T0);
    windows.hit("c", LIMIT, T0 + 1);
    // a and b still hold an admission: neither goes.
    expect(windows.size).toBe(3);
    // An interval later a and b are idle, c is not: a new key makes room from a and b only.
    windows.hit("d", LIMIT, T0 + LIMIT.intervalMs);
    expect(["a", "b", "c", "d"].filter((key) => windows.has(key))).toEqual(["c", "d"]);
  });
});
