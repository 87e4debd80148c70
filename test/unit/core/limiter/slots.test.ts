// The concurrency slot book (src/core/limiter/slots.ts) against a reference model, on a fake clock:
// never more than `limit` live slots; a holder that renews in time keeps its slot; a crashed
// holder's slot, or one whose release never arrived, frees after its lease; duplicate and unknown
// releases are harmless; a book reloaded from its entries (an object restarted) keeps every slot.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SlotBook, type SlotAnswer } from "../../../../src/core/limiter/slots.ts";

const LEASE = 30_000;
const T0 = 1_800_000_000_000;

/** Obviously correct: every slot with its lease end, live while `now < until`, scanned on each op. */
class ReferenceSlots {
  holds: { slot: string; until: number }[] = [];
  live(now: number) {
    return this.holds.filter((h) => h.until > now);
  }
  take(slot: string, now: number, limit: number, leaseMs: number): SlotAnswer {
    this.holds = this.live(now);
    const mine = this.holds.find((h) => h.slot === slot);
    if (mine) {
      mine.until = Math.max(mine.until, now + leaseMs);
      return { granted: true, slot, until: mine.until, inUse: this.holds.length, limit };
    }
    if (this.holds.length >= limit) {
      return { granted: false, inUse: this.holds.length, limit, retryInMs: Math.max(1, Math.min(...this.holds.map((h) => h.until)) - now) };
    }
    this.holds.push({ slot, until: now + leaseMs });
    return { granted: true, slot, until: now + leaseMs, inUse: this.holds.length, limit };
  }
  renew(slot: string, now: number, leaseMs: number) {
    const mine = this.live(now).find((h) => h.slot === slot);
    if (!mine) {
      this.holds = this.holds.filter((h) => h.slot !== slot);
      return { held: false };
    }
    mine.until = Math.max(mine.until, now + leaseMs);
    return { held: true, until: mine.until };
  }
  release(slot: string) {
    const before = this.holds.length;
    this.holds = this.holds.filter((h) => h.slot !== slot);
    return this.holds.length < before;
  }
}

type Op =
  | { kind: "take"; holder: number }
  | { kind: "renew"; holder: number }
  | { kind: "release"; holder: number }
  | { kind: "wait"; ms: number }
  | { kind: "restart" };

const HOLDERS = 8;
const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant("take" as const), holder: fc.nat(HOLDERS - 1) }),
  fc.record({ kind: fc.constant("renew" as const), holder: fc.nat(HOLDERS - 1) }),
  fc.record({ kind: fc.constant("release" as const), holder: fc.nat(HOLDERS - 1) }),
  fc.record({ kind: fc.constant("wait" as const), ms: fc.oneof(fc.integer({ min: 0, max: 1_000 }), fc.integer({ min: 0, max: 2 * LEASE })) }),
  fc.constant({ kind: "restart" as const }),
);

/** The answer without the ids of lapsed slots the book dropped (the model keeps no such list). */
const answerOf = ({ lapsed: _, ...answer }: SlotAnswer & { lapsed: readonly string[] }) => answer;

describe("SlotBook", () => {
  it("answers every take, renewal and release as the reference model does, and never holds more than the limit live", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 5 }), fc.array(op, { maxLength: 120 }), (limit, ops) => {
        let book = new SlotBook();
        const model = new ReferenceSlots();
        let now = T0;
        for (const o of ops) {
          const slot = `holder-${"holder" in o ? o.holder : 0}`;
          if (o.kind === "take") expect(answerOf(book.take(slot, now, limit, LEASE))).toEqual(model.take(slot, now, limit, LEASE));
          if (o.kind === "renew") expect(book.renew(slot, now, LEASE)).toEqual(model.renew(slot, now, LEASE));
          if (o.kind === "release") expect(book.release(slot)).toBe(model.release(slot));
          if (o.kind === "wait") now += o.ms;
          // The object restarted: a new book from what storage holds.
          if (o.kind === "restart") book = new SlotBook(book.entries());
          expect(book.inUse(now)).toBe(model.live(now).length);
          expect(book.inUse(now)).toBeLessThanOrEqual(limit);
        }
      }),
      { numRuns: 500, seed: 20261201 },
    );
  });

  it("a holder that renews within every lease never loses its slot, whatever the others do", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 4 }),
        fc.array(fc.tuple(fc.integer({ min: 1, max: LEASE - 1 }), fc.array(op, { maxLength: 6 })), { maxLength: 40 }),
        (limit, steps) => {
          let book = new SlotBook();
          let now = T0;
          expect(book.take("steady", now, limit, LEASE).granted).toBe(true);
          let lastRenewal = now;
          for (const [gap, others] of steps) {
            for (const o of others) {
              const slot = `other-${"holder" in o ? o.holder : 0}`;
              if (o.kind === "take") book.take(slot, now, limit, LEASE);
              if (o.kind === "renew") book.renew(slot, now, LEASE);
              if (o.kind === "release") book.release(slot);
              if (o.kind === "restart") book = new SlotBook(book.entries());
              // Others' time passes too, but never past the steady holder's next renewal.
              if (o.kind === "wait") now = Math.min(now + o.ms, lastRenewal + gap);
            }
            now = lastRenewal + gap;
            expect(book.renew("steady", now, LEASE)).toEqual({ held: true, until: now + LEASE });
            lastRenewal = now;
            expect(book.inUse(now)).toBeLessThanOrEqual(limit);
          }
        },
      ),
      { numRuns: 300, seed: 20261201 },
    );
  });

  it("slots of holders that crashed (no renewal, no release) or whose release was lost free once their lease lapses, not before", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 6 }), fc.array(fc.integer({ min: 0, max: LEASE - 1 }), { minLength: 1, maxLength: 6 }), (limit, renewedAgo) => {
        const book = new SlotBook();
        let now = T0;
        for (let i = 0; i < limit; i++) expect(book.take(`gone-${i}`, now, limit, LEASE).granted).toBe(true);
        // Some renew once more before vanishing; their leases run from that renewal.
        let lastLapse = now + LEASE;
        now += LEASE - 1;
        renewedAgo.slice(0, limit).forEach((ago, i) => {
          const at = now - ago;
          book.renew(`gone-${i}`, at, LEASE);
          lastLapse = Math.max(lastLapse, at + LEASE);
        });
        const refused = book.take("newcomer", now, limit, LEASE);
        expect(refused.granted).toBe(false);
        // The hint is when the earliest lease lapses: a retry then finds a slot if no one renewed.
        const retryAt = now + (refused as { retryInMs: number }).retryInMs;
        expect(book.take("newcomer", retryAt - 1, limit, LEASE).granted).toBe(false);
        expect(book.take("newcomer", retryAt, limit, LEASE).granted).toBe(true);
        // Every lapsed slot is free by the last lease's end.
        expect(book.inUse(lastLapse)).toBe(1);
        for (let i = 1; i < limit; i++) expect(book.take(`late-${i}`, lastLapse, limit, LEASE).granted).toBe(true);
        expect(book.take("one-too-many", lastLapse, limit, LEASE).granted).toBe(false);
      }),
      { numRuns: 300, seed: 20261201 },
    );
  });

  it("a renewal after the lease lapsed finds the slot gone, even before a take dropped it", () => {
    const book = new SlotBook();
    book.take("a", T0, 1, LEASE);
    expect(book.renew("a", T0 + LEASE, LEASE)).toEqual({ held: false });
    expect(book.inUse(T0 + LEASE)).toBe(0);
  });

  it("duplicate and unknown releases are harmless: they free no one else's slot", () => {
    const book = new SlotBook();
    book.take("a", T0, 2, LEASE);
    book.take("b", T0, 2, LEASE);
    expect(book.release("a")).toBe(true);
    expect(book.release("a")).toBe(false);
    expect(book.release("never-taken")).toBe(false);
    expect(book.inUse(T0)).toBe(1);
    expect(book.take("c", T0, 2, LEASE).granted).toBe(true);
    expect(book.take("d", T0, 2, LEASE).granted).toBe(false);
  });

  it("a take retried under the same id holds one slot, not two", () => {
    const book = new SlotBook();
    expect(book.take("a", T0, 2, LEASE)).toMatchObject({ granted: true, inUse: 1 });
    expect(book.take("a", T0 + 5, 2, LEASE)).toMatchObject({ granted: true, inUse: 1, until: T0 + 5 + LEASE });
  });

  it("a shrunken limit refuses newcomers and keeps the slots already held", () => {
    const book = new SlotBook();
    for (const slot of ["a", "b", "c"]) book.take(slot, T0, 3, LEASE);
    expect(book.take("d", T0, 2, LEASE)).toMatchObject({ granted: false, inUse: 3, limit: 2 });
    expect(book.renew("a", T0 + 1, LEASE)).toMatchObject({ held: true });
  });

  it("reloaded from its entries (an object restarted), keeps every held slot and its lease", () => {
    const book = new SlotBook();
    book.take("a", T0, 3, LEASE);
    book.take("b", T0 + 10, 3, LEASE);
    const again = new SlotBook(book.entries());
    expect(again.inUse(T0 + 10)).toBe(2);
    expect(again.renew("a", T0 + 20, LEASE)).toEqual({ held: true, until: T0 + 20 + LEASE });
    expect(again.lastLapse()).toBe(T0 + 20 + LEASE);
  });
});
