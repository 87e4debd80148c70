// Counter.inspect: "read without spending", on the counter core with an in-memory store.
import { describe, expect, it } from "vitest";
import { Counter, MemoryCounterStore } from "../../../src/core/limiter/index.ts";

const LIMIT = { count: 3, intervalMs: 10_000 };

describe("Counter.inspect", () => {
  it("reports the window without recording, writing or loading anything", () => {
    const store = new MemoryCounterStore();
    const counter = new Counter(store, "k");
    counter.decide(LIMIT, 2, 1_000);
    const writes = store.writes;
    for (let i = 0; i < 10; i++) {
      expect(counter.inspect(LIMIT, 4_000)).toEqual({
        limit: LIMIT,
        admissions: 2,
        remaining: 1,
        resetInMs: 7_000,
        retryInMs: 0,
        ages: [3_000, 3_000],
        source: "memory",
      });
    }
    expect(store.writes).toBe(writes);
    // Nothing was spent: one more admission, then a denial.
    expect(counter.decide(LIMIT, 2, 4_000).verdicts.map((v) => v.allowed)).toEqual([true, false]);
    expect(counter.inspect(LIMIT, 4_000)).toMatchObject({ admissions: 3, remaining: 0, retryInMs: 7_000 });
  });

  it("reads a counter that is not in memory from storage into a throwaway window", () => {
    const store = new MemoryCounterStore();
    new Counter(store, "k").decide(LIMIT, 3, 1_000);
    const fresh = new Counter(store, "k");
    const writes = store.writes;
    expect(fresh.inspect(LIMIT, 2_000)).toMatchObject({ admissions: 3, remaining: 0, source: "storage" });
    expect(fresh.inspect(LIMIT, 2_000).source).toBe("storage"); // still not loaded
    expect(store.writes).toBe(writes);
    expect(new Counter(new MemoryCounterStore(), "none").inspect(LIMIT, 0)).toMatchObject({
      admissions: 0,
      remaining: 3,
      resetInMs: 0,
      retryInMs: 0,
      ages: [],
    });
  });
});
