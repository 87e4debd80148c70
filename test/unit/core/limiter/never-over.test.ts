// The ways a code review found for a counter to admit more than `count` (issue 21, "Never over"),
// each driven through the Counter the Durable Object runs. Each failed before its fix.
import { describe, expect, it } from "vitest";
import { Counter, LeaseBook, MemoryCounterStore, type Limit } from "../../../../src/core/limiter/index.ts";

/** Admits requests one at a time at `now` until the first refusal; how many were admitted. */
function drain(counter: Counter, limit: Limit, now: number, caller?: string): number {
  let admitted = 0;
  while (counter.decide(limit, 1, now, caller ? { lease: { want: 0, caller } } : {}).verdicts[0]!.allowed) admitted++;
  return admitted;
}

describe("never more than count in a window", () => {
  it("admissions reported by an isolate's fallback are all kept: a lease given back then frees only its own units", () => {
    const limit = { count: 160, intervalMs: 10_000 };
    const counter = new Counter(new MemoryCounterStore(), "k");
    const a = new LeaseBook({ caller: "a" });
    // Isolate a takes a lease on its first call.
    const request = a.request("k", 0);
    const first = counter.decide(limit, 1, 0, { lease: request });
    a.accept("k", limit, first.lease, 0, request);
    expect(first.lease?.units).toBeGreaterThan(0);
    // Isolate b fills the window, then reports 10 admissions its fallback made meanwhile.
    const filled = counter.decide(limit, 200, 1, { lease: { want: 0, caller: "b" } }).verdicts.filter((v) => v.allowed).length;
    counter.decide(limit, 1, 2, { lease: { want: 0, caller: "b" }, recorded: [{ id: "b-1", agesMs: Array(10).fill(0) }] });
    // Isolate a gives its lease back unused.
    const back = a.request("k", 3);
    counter.decide(limit, 1, 3, { lease: back });
    // 2 + filled + 10 real admissions are in the window: nothing more may be admitted.
    expect(2 + filled + 10).toBeGreaterThanOrEqual(limit.count);
    expect(drain(counter, limit, 4, "b")).toBe(0);
  });

  it("a limit lowered, the counter reloaded, then the limit raised: nothing the window held is forgotten", () => {
    const high = { count: 200, intervalMs: 60_000 };
    const low = { count: 100, intervalMs: 60_000 };
    const store = new MemoryCounterStore();
    const counter = new Counter(store, "k");
    expect(drain(counter, high, 0)).toBe(200);
    // Evicted; the next request comes under the lowered limit, then it is raised again.
    const reloaded = new Counter(store, "k");
    expect(drain(reloaded, low, 1_000)).toBe(0);
    expect(drain(reloaded, high, 2_000)).toBe(0);
  });

  it("an interval lengthened mid-window counts the admissions of the old windows it now covers", () => {
    const short = { count: 100, intervalMs: 1_000 };
    const long = { count: 250, intervalMs: 10_000 };
    const counter = new Counter(new MemoryCounterStore(), "k");
    expect(drain(counter, short, 0)).toBe(100);
    expect(drain(counter, short, 1_500)).toBe(100);
    // 200 admissions in the last 10 s: under 250 per 10 s at most 50 more.
    expect(drain(counter, long, 1_600)).toBeLessThanOrEqual(50);
  });

  it("a report delivered twice (its first answer was lost) is counted once", () => {
    const limit = { count: 20, intervalMs: 10_000 };
    const counter = new Counter(new MemoryCounterStore(), "k");
    const report = { id: "b-7", agesMs: Array(5).fill(0) };
    counter.decide(limit, 1, 0, { lease: { want: 0, caller: "b" }, recorded: [report] });
    counter.decide(limit, 1, 1, { lease: { want: 0, caller: "b" }, recorded: [report] });
    expect(drain(counter, limit, 2, "b")).toBe(20 - 5 - 2);
  });

  it("reported admissions are placed by their age at the object's clock, not the isolate's", () => {
    const limit = { count: 10, intervalMs: 1_000 };
    const counter = new Counter(new MemoryCounterStore(), "k");
    // Made 100 ms before the report reached the object at 5_000 (object clock).
    counter.decide(limit, 1, 5_000, { lease: { want: 0, caller: "b" }, recorded: [{ id: "b-1", agesMs: Array(9).fill(100) }] });
    // They stay until 5_900 at least: the window is full until then.
    expect(drain(counter, limit, 5_899, "b")).toBe(0);
    expect(drain(counter, limit, 5_900, "b")).toBe(9);
  });

  it("within an interval of a fallback report a denial is not to be cached: reports still on their way may push its retry back", () => {
    const limit = { count: 10, intervalMs: 1_000 };
    const counter = new Counter(new MemoryCounterStore(), "k");
    counter.decide(limit, 1, 0, { lease: { want: 0, caller: "b" }, recorded: [{ id: "b-1", agesMs: Array(9).fill(0) }] });
    expect(counter.decide(limit, 1, 10, { lease: { want: 0, caller: "c" } }).verdicts[0]).toMatchObject({ allowed: false, cacheForMs: 0 });
    // An interval later, nothing of that outage can arrive any more: denials are cached again.
    for (let t = 1_000; t < 1_010; t++) counter.decide(limit, 1, t, { lease: { want: 0, caller: "c" } });
    expect(counter.decide(limit, 1, 1_010, { lease: { want: 0, caller: "c" } }).verdicts[0]!.cacheForMs).toBeUndefined();
  });
});
