// The early refusals a review found (issue 33), each driven through the Counter the Durable Object
// runs and the LeaseBook an isolate keeps, as the review drove them. Each failed before its fix.
import { describe, expect, it } from "vitest";
import { Counter, LeaseBook, LocalFallback, MemoryCounterStore, type Limit } from "../../../../src/core/limiter/index.ts";
import { IsolateModel, sendAndWait, type Outcome } from "./isolate-model.ts";

const ROW_25: Limit = { count: 1_000, intervalMs: 10_000 };

/** One request of the client through `book` at `now`: on its lease, or a call to the object. */
function send(counter: Counter, book: LeaseBook, name: string, limit: Limit, now: number): { allowed: boolean; retryInMs: number; byLease: boolean } {
  const local = book.admit(name, limit, now);
  if (local) return { allowed: true, retryInMs: 0, byLease: true };
  const request = book.request(name, now);
  const { verdicts, lease } = counter.decide(limit, 1, now, { lease: request });
  book.accept(name, limit, lease, now, request);
  return { ...verdicts[0]!, byLease: false };
}

describe("no early refusal from units leased and never given back", () => {
  it("a client served by isolate A for 83 ms, then by isolate B: B waits for A's lease to come back at its end and is refused only at count", () => {
    const counter = new Counter(new MemoryCounterStore(), "k");
    const a = new IsolateModel("a");
    const b = new IsolateModel("b");
    const models = [a, b];
    let now = 1_000_000;
    const admitted: number[] = [];
    // A serves the client alone, one request a millisecond, for 83 ms: it holds a lease at the end.
    for (; now < 1_000_083; now++) if (sendAndWait(models, a, () => counter, "k", ROW_25, now).outcome.admitted) admitted.push(now);
    // Then B serves it alone, as fast as it asks, until the first refusal.
    let refused: { outcome: Outcome; at: number } | undefined;
    while (!refused) {
      const answer = sendAndWait(models, b, () => counter, "k", ROW_25, now);
      now = answer.at + 1;
      if (answer.outcome.admitted) admitted.push(answer.at);
      else refused = answer;
    }
    // A's unused units came back at its lease's end: B is refused only when the window holds count real admissions.
    expect(refused.outcome).toMatchObject({ failed: false });
    expect(admitted.filter((t) => t > refused!.at - ROW_25.intervalMs)).toHaveLength(ROW_25.count);
  });

  it("a lease pushed out of a full LeaseBook by 10,000 other counters still comes back: the same isolate is refused only at count", () => {
    const store = new MemoryCounterStore();
    const counter = new Counter(store, "k");
    const book = new LeaseBook({ caller: "a" });
    const admitted: number[] = [];
    let now = 1_000_000;
    // The client, alone on this isolate for more than an interval: its counter leases it the usual sizes.
    for (; now < 1_000_000 + 11_000; now += 100) if (send(counter, book, "k", ROW_25, now).allowed) admitted.push(now);
    let leased = false;
    for (let i = 0; i < 3 && !leased; i++, now++) {
      const answer = send(counter, book, "k", ROW_25, now);
      if (answer.allowed) admitted.push(now);
      leased = answer.byLease;
    }
    expect(leased).toBe(true);
    // 10,000 other counters of this isolate are leased units too (each its own counter).
    for (let i = 0; i < 10_000; i++) {
      const name = `other-${i}`;
      // A lease is asked for on an isolate's second call to a counter.
      book.request(name, now);
      const request = book.request(name, now);
      const { lease } = new Counter(store, name).decide(ROW_25, 1, now, { lease: request });
      book.accept(name, ROW_25, lease, now, request);
    }
    // The client again on the same isolate, as fast as it asks, until the first refusal.
    for (; ; now++) {
      if (!send(counter, book, "k", ROW_25, now).allowed) break;
      admitted.push(now);
    }
    // Refused only once the window holds count real admissions.
    expect(admitted.filter((t) => t > now - ROW_25.intervalMs)).toHaveLength(ROW_25.count);
  });

  it("a full LeaseBook drops only leases the object no longer counts, and asks for none while every one still counts", () => {
    const limit: Limit = { count: 800, intervalMs: 1_000 };
    const book = new LeaseBook({ caller: "a", maxCounters: 2 });
    const grant = (id: string) => ({ id, units: 8, spanMs: 250, base: 0, expiringMs: [] });
    book.accept("x", limit, grant("x1"), 0, book.request("x", 0));
    book.accept("y", limit, grant("y1"), 0, book.request("y", 0));
    // Both still count at their objects (until 250 + 1,000): no room for a third, even on its second call.
    expect(book.request("z", 900).want).toBe(0);
    expect(book.request("z", 1_000).want).toBe(0);
    // Both are kept, to be given back.
    expect(book.owes("x", 1_000) && book.owes("y", 1_000)).toBe(true);
    // Once they no longer count, they make room.
    expect(book.request("z", 1_250).want).toBeGreaterThan(0);
    // Dropped: nothing of theirs is given back any more.
    expect(book.owes("x", 1_250) || book.owes("y", 1_250)).toBe(false);
  });
});

describe("no second count from a fallback window forgotten in an outage (issue 32)", () => {
  it("a counter's local window is not forgotten while it holds admissions, however many other counters fall back", () => {
    const limit: Limit = { count: 15, intervalMs: 10_000 };
    const fallback = new LocalFallback({ caller: "a" });
    const now = 1_000_000;
    let admitted = 0;
    for (let i = 0; i < 30; i++) if (fallback.decide("k", limit, now).allowed) admitted++;
    expect(admitted).toBe(15);
    // 10,000 other counters of this isolate fall back too.
    for (let i = 0; i < 10_000; i++) fallback.decide(`other-${i}`, limit, now + 1);
    for (let i = 0; i < 30; i++) if (fallback.decide("k", limit, now + 2).allowed) admitted++;
    expect(admitted).toBe(15);
    // And its admissions are still reported to the object once it answers.
    expect(fallback.reports("k", limit, now + 3).flatMap((r) => r.agesMs)).toHaveLength(15);
  });
});

describe("no second count from a call whose answer came too late (bench:accuracy, steady at 90% over 64 isolates)", () => {
  /**
   * One request as Counting decides it with FAIL_MODE=open: a call to the object carrying this
   * isolate's fallback reports; when its answer is lost (the call outlived COUNTER_TIMEOUT_MS after
   * the object decided it), the isolate's local window decides and reports its admission.
   */
  function send(counter: Counter, fallback: LocalFallback, limit: Limit, now: number, call: string, lost: boolean): boolean {
    const recorded = fallback.reports("k", limit, now);
    const { verdicts } = counter.decide(limit, 1, now, { recorded, call });
    if (lost) return fallback.decide("k", limit, now + 250, call).allowed;
    fallback.delivered("k", recorded);
    fallback.observe("k", { used: verdicts[0]!.limit - verdicts[0]!.remaining, at: now });
    return verdicts[0]!.allowed;
  }

  it("a client at 90% whose calls sometimes time out after the object admitted them is never refused", () => {
    const limit: Limit = { count: 100, intervalMs: 10_000 };
    const counter = new Counter(new MemoryCounterStore(), "k");
    const isolates = Array.from({ length: 64 }, (_, i) => new LocalFallback({ caller: `i${i}` }));
    const refused: number[] = [];
    // 90 per 10 s, round robin over 64 isolates, every third answer lost (a slow machine), three intervals.
    for (let n = 0; n < 270; n++) {
      const now = 1_000_000 + Math.floor((n * limit.intervalMs) / 90);
      if (!send(counter, isolates[n % 64]!, limit, now, `i${n % 64}-${n}`, n % 3 === 1)) refused.push(n);
    }
    expect(refused).toEqual([]);
  });
});
