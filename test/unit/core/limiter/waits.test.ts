// A wait only where it can succeed (issue 44): a request refused only because units lent to other
// isolates fill the window waits for them to come back, but no more requests wait than those
// units could admit; the rest are refused at once, told to retry when the first is due back.
import { describe, expect, it } from "vitest";
import { Counter, MemoryCounterStore, type Limit } from "../../../../src/core/limiter/index.ts";

const ROW_5: Limit = { count: 100, intervalMs: 60_000 };
const T0 = 1_000_000;

/** A counter with `lent` units leased to isolate "a" (unused) and the rest of the window filled by isolate "b". */
function lentAndFull(): { counter: Counter; lent: number; endsAt: number; id: string } {
  const counter = new Counter(new MemoryCounterStore(), "k");
  const first = counter.decide(ROW_5, 1, T0, { lease: { caller: "a", call: 1, want: 8 } });
  const lease = first.lease!;
  expect(lease.units).toBeGreaterThan(0);
  const fill = ROW_5.count - 1 - lease.units;
  const filled = counter.decide(ROW_5, fill, T0 + 1, { lease: { caller: "b", call: 1, want: 0 } });
  expect(filled.verdicts.every((v) => v.allowed)).toBe(true);
  return { counter, lent: lease.units, endsAt: T0 + lease.spanMs, id: lease.id };
}

describe("waits for lent units", () => {
  it("400 requests in flight against 100 per 60 s with 6 units lent elsewhere: 6 wait, 394 are refused at once with a Retry-After no later than the lease's end", () => {
    const { counter, lent, endsAt } = lentAndFull();
    const now = T0 + 700;
    const { verdicts } = counter.decide(ROW_5, 400, now, { lease: { caller: "b", call: 2, want: 0 } });
    expect(verdicts.every((v) => !v.allowed)).toBe(true);
    const waiting = verdicts.filter((v) => v.waitMs !== undefined);
    expect(waiting).toHaveLength(lent);
    for (const v of waiting) expect(now + v.waitMs!).toBeLessThanOrEqual(endsAt + 1);
    const refused = verdicts.filter((v) => v.waitMs === undefined);
    expect(refused).toHaveLength(400 - lent);
    for (const v of refused) {
      // Truthful: the soonest room may appear is when the lent units are due back.
      expect(now + v.retryInMs).toBeLessThanOrEqual(endsAt + 1);
      expect(v.retryInMs).toBeGreaterThan(0);
      // Cacheable until then, so a flood on an isolate costs no call per request.
      expect(v.cacheForMs).toBe(v.retryInMs);
    }
  });

  it("once the waiters have asked again, a new refusal may wait again", () => {
    const { counter, lent, endsAt, id } = lentAndFull();
    const first = counter.decide(ROW_5, lent, T0 + 10, { lease: { caller: "b", call: 2, want: 0 } });
    expect(first.verdicts.every((v) => v.waitMs !== undefined)).toBe(true);
    expect(counter.decide(ROW_5, 1, T0 + 20, { lease: { caller: "c", call: 1, want: 0 } }).verdicts[0]!.waitMs).toBeUndefined();
    // The lease came back unused at its end: the waiters asking again are admitted.
    const back = counter.decide(ROW_5, 0, endsAt + 1, {
      lease: { caller: "a", call: 2, want: 0, returned: [{ id, units: lent, spanMs: endsAt - T0, usedAtMs: [] }] },
    });
    expect(back.verdicts).toEqual([]);
    const again = counter.decide(ROW_5, lent + 1, endsAt + 2, { lease: { caller: "b", call: 3, want: 0 } });
    expect(again.verdicts.filter((v) => v.allowed)).toHaveLength(lent);
    expect(again.verdicts.at(-1)!.waitMs).toBeUndefined();
  });

  it("asks a waiter back within the round trip it gave (reaskMs), and a lease used meanwhile ends the wait with a refusal then", () => {
    const { counter, lent, endsAt, id } = lentAndFull();
    const asked = counter.decide(ROW_5, lent, T0 + 10, { lease: { caller: "b", call: 2, want: 0, reaskMs: 40 } });
    for (const v of asked.verdicts) expect(v.waitMs).toBe(40);
    // Asking again when told, each is a waiter again (its own earlier wait has ended): none refused by it.
    const again = counter.decide(ROW_5, lent, T0 + 50, { lease: { caller: "b", call: 3, want: 0, reaskMs: 40 } });
    expect(again.verdicts.every((v) => v.waitMs === 40)).toBe(true);
    // The holder used its lease in full and says so on its next call: the waiters are refused when they ask again.
    counter.decide(ROW_5, 0, T0 + 60, {
      lease: { caller: "a", call: 2, want: 0, returned: [{ id, units: lent, spanMs: endsAt - T0, usedAtMs: Array.from({ length: lent }, () => 5) }] },
    });
    const refused = counter.decide(ROW_5, lent, T0 + 90, { lease: { caller: "b", call: 4, want: 0, reaskMs: 40 } });
    expect(refused.verdicts.every((v) => !v.allowed && v.waitMs === undefined)).toBe(true);
  });

  it("a client whose own admissions fill the window is refused without a wait", () => {
    const counter = new Counter(new MemoryCounterStore(), "k");
    counter.decide(ROW_5, ROW_5.count, T0, { lease: { caller: "b", call: 1, want: 0 } });
    const { verdicts } = counter.decide(ROW_5, 50, T0 + 1, { lease: { caller: "b", call: 2, want: 0 } });
    expect(verdicts.every((v) => !v.allowed && v.waitMs === undefined)).toBe(true);
  });
});
