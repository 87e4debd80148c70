import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Counter, LeaseBook, LEASE_MIN_COUNT, MemoryCounterStore, SETTLE_MS, type Limit } from "../../../../src/core/limiter/index.ts";
import { maxInAnyWindow } from "./reference-model.ts";

/** One request of an isolate (`book`) that calls `counter` at `now`, as the gateway's Counting does: what it asked, and the lease it accepted. */
function callFrom(book: LeaseBook, counter: Counter, limit: Limit, now: number, name = "k") {
  const request = book.request(name, now);
  const { lease } = counter.decide(limit, 1, now, { lease: request });
  book.accept(name, limit, lease, now, request);
  return { request, lease };
}

describe("admission leases", () => {
  it("property: isolates sharing a counter, with object restarts, never admit more than count in any window", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: LEASE_MIN_COUNT, max: 300 }),
        fc.integer({ min: 100, max: 10_000 }),
        fc.integer({ min: 2, max: 5 }),
        fc.array(fc.record({ gap: fc.integer({ min: 0, max: 400 }), isolate: fc.nat(), restart: fc.boolean().map((b) => b && Math.random() < 0.1) }), {
          minLength: 1,
          maxLength: 400,
        }),
        (count, intervalMs, isolates, steps) => {
          const limit = { count, intervalMs };
          const store = new MemoryCounterStore();
          let counter = new Counter(store, "k");
          const books = Array.from({ length: isolates }, () => new LeaseBook());
          const admitted: number[] = [];
          let now = 0;
          for (const { gap, isolate, restart } of steps) {
            now += gap;
            if (restart) counter = new Counter(store, "k");
            const book = books[isolate % isolates]!;
            const local = book.admit("k", limit, now);
            if (local) {
              admitted.push(now);
              continue;
            }
            const request = book.request("k", now);
            const { verdicts, lease } = counter.decide(limit, 1, now, { lease: request });
            book.accept("k", limit, lease, now, request);
            if (verdicts[0]!.allowed) admitted.push(now);
          }
          expect(maxInAnyWindow(admitted, intervalMs)).toBeLessThanOrEqual(count);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("property: with several isolates a denial comes only when admissions and units still leased out fill the window", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: LEASE_MIN_COUNT, max: 200 }),
        fc.integer({ min: 100, max: 5_000 }),
        fc.array(fc.record({ gap: fc.integer({ min: 0, max: 100 }), isolate: fc.nat({ max: 3 }) }), { minLength: 1, maxLength: 300 }),
        (count, intervalMs, steps) => {
          const limit = { count, intervalMs };
          const counter = new Counter(new MemoryCounterStore(), "k");
          const books = Array.from({ length: 4 }, () => new LeaseBook());
          interface Granted {
            until: number;
            units: number;
            back: boolean;
          }
          const granted: Granted[] = [];
          const held: (Granted | undefined)[] = [];
          // Every admission, with the lease it was made on (if any).
          const admitted: { at: number; on?: Granted }[] = [];
          let now = 0;
          for (const { gap, isolate } of steps) {
            now += gap;
            const book = books[isolate]!;
            if (book.admit("k", limit, now)) {
              admitted.push({ at: now, on: held[isolate]! });
              continue;
            }
            const request = book.request("k", now);
            if (request.returned) held[isolate]!.back = true;
            const { verdicts, lease } = counter.decide(limit, 1, now, { lease: request });
            book.accept("k", limit, lease, now, request);
            held[isolate] = lease ? { until: now + lease.spanMs, units: lease.units, back: false } : undefined;
            if (lease) granted.push(held[isolate]!);
            if (verdicts[0]!.allowed) admitted.push({ at: now });
            else {
              // A lease not given back counts in full, as used at its end, until that leaves the window.
              const out = granted.filter((g) => !g.back && g.until > now - intervalMs);
              const real = admitted.filter((a) => a.at > now - intervalMs && !(a.on && out.includes(a.on))).length;
              expect(real + out.reduce((n, g) => n + g.units, 0)).toBeGreaterThanOrEqual(count);
            }
          }
          expect(
            maxInAnyWindow(
              admitted.map((a) => a.at),
              intervalMs,
            ),
          ).toBeLessThanOrEqual(count);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("a lease outlives a restart of its object: its units are restored at the lease's end, and the restarted object takes it back when it comes", () => {
    const store = new MemoryCounterStore();
    const limit = { count: 800, intervalMs: 10_000 };
    const counter = new Counter(store, "k");
    const { lease } = counter.decide(limit, 1, 1_000, { lease: { caller: "a", want: 8 } });
    expect(lease).toMatchObject({ units: 8, spanMs: 7_500 });
    // Restarted at 1,100; the isolate may use its 8 units until 8,500, so they count until 18,500.
    const restarted = new Counter(store, "k");
    expect(restarted.size(limit, 1_100)).toBe(9);
    expect(restarted.size(limit, 18_499)).toBe(8);
    expect(restarted.size(limit, 18_500)).toBe(0);
    // Storage listed the lease: given back with one use, its units give way to that use.
    const returned = [{ id: lease!.id, units: 8, spanMs: 7_500, usedAtMs: [10] }];
    restarted.decide(limit, 1, 1_200, { lease: { caller: "a", want: 0, heard: lease!.id, returned } });
    expect(restarted.inspect(limit, 1_200).ages).toEqual([200, 190, 0]);
    // Given back again (its answer lost), and after another restart: nothing more is released.
    restarted.decide(limit, 1, 1_300, { lease: { caller: "a", want: 0, heard: lease!.id, returned } });
    expect(restarted.size(limit, 1_300)).toBe(4);
    const again = new Counter(store, "k");
    again.decide(limit, 1, 1_400, { lease: { caller: "a", want: 0, heard: lease!.id, returned } });
    expect(again.size(limit, 1_400)).toBeGreaterThanOrEqual(5);
  });

  it("leases out when an idle object writes its exact window and restarts are still taken back, and a grant the isolate never heard of is taken back whole", () => {
    const store = new MemoryCounterStore();
    const limit = { count: 800, intervalMs: 10_000 };
    const counter = new Counter(store, "k");
    const heard = counter.decide(limit, 1, 1_000, { lease: { caller: "a", want: 8 } }).lease!;
    // The answer bringing `unheard` is lost (a's next call still names `heard`).
    const unheard = counter.decide(limit, 1, 1_100, {
      lease: { caller: "a", want: 8, heard: heard.id, returned: [{ id: heard.id, units: 8, spanMs: heard.spanMs, usedAtMs: [] }] },
    }).lease!;
    expect(unheard.units).toBe(8);
    // Idle: the exact window is written (a snapshot), then the object restarts.
    counter.settle(1_100 + SETTLE_MS);
    const restarted = new Counter(store, "k");
    expect(restarted.size(limit, 3_200)).toBe(2 + 8);
    restarted.decide(limit, 0, 3_200, { lease: { caller: "a", want: 0, heard: heard.id } });
    expect(restarted.size(limit, 3_200)).toBe(2);
  });

  it("a lease given back is replaced by its uses, at their times; a second return of it changes nothing", () => {
    const limit = { count: 800, intervalMs: 10_000 };
    const counter = new Counter(new MemoryCounterStore(), "k");
    const { lease } = counter.decide(limit, 1, 1_000, { lease: { caller: "a", want: 8 } });
    const returned = [{ id: lease!.id, units: 8, spanMs: 7_500, usedAtMs: [100, 300] }];
    counter.decide(limit, 1, 1_500, { lease: { caller: "a", want: 0, heard: lease!.id, returned } });
    expect(counter.inspect(limit, 1_500).ages).toEqual([500, 400, 200, 0]);
    counter.decide(limit, 1, 1_600, { lease: { caller: "a", want: 0, heard: lease!.id, returned } });
    expect(counter.inspect(limit, 1_600).admissions).toBe(5);
    // A return that does not fit the lease (more uses than units) is refused: the units stay.
    const next = counter.decide(limit, 1, 1_700, { lease: { caller: "a", want: 8, heard: lease!.id } }).lease!;
    counter.decide(limit, 1, 1_800, {
      lease: {
        caller: "a",
        want: 0,
        heard: next.id,
        returned: [{ id: next.id, units: next.units, spanMs: next.spanMs, usedAtMs: Array(next.units + 1).fill(1) }],
      },
    });
    expect(counter.inspect(limit, 1_800).admissions).toBe(7 + next.units);
  });

  it("counters below LEASE_MIN_COUNT are never leased; what is lent at once is at most half the room real admissions leave", () => {
    const small = new Counter(new MemoryCounterStore(), "s");
    expect(small.decide({ count: LEASE_MIN_COUNT - 1, intervalMs: 1_000 }, 1, 0, { lease: { caller: "a", want: 8 } }).lease).toBeUndefined();
    const big = new Counter(new MemoryCounterStore(), "b");
    const limit = { count: 1_000, intervalMs: 1_000 };
    big.decide(limit, 980, 0);
    // 19 left after its own request: half of that, 9.
    const first = big.decide(limit, 1, 0, { lease: { caller: "a", want: 50 } }).lease;
    expect(first?.units).toBe(9);
    // Lent to a, 9 of the 19: another isolate may borrow none more.
    expect(big.decide(limit, 0, 0, { lease: { caller: "b", want: 50 } }).lease).toBeUndefined();
  });

  it("a refusal only because another isolate holds lent units is no 429: it says to ask again when they are due back, and then admits", () => {
    const limit = { count: 800, intervalMs: 10_000 };
    const counter = new Counter(new MemoryCounterStore(), "k");
    const lease = counter.decide(limit, 1, 0, { lease: { caller: "a", want: 8 } }).lease!;
    expect(lease).toMatchObject({ units: 8, spanMs: 7_500 });
    const verdicts = counter.decide(limit, 800, 100, { lease: { caller: "b", want: 0 } }).verdicts;
    expect(verdicts.filter((v) => v.allowed)).toHaveLength(791);
    const waiting = verdicts.find((v) => !v.allowed)!;
    // a's lease ends at 7,500: ask again just after, never from a cache.
    expect(waiting).toMatchObject({ waitMs: 7_401, cacheForMs: 0 });
    // Its own lease never makes a wait for a: a plain refusal (the window holds 800).
    const own = counter.decide(limit, 1, 200, { lease: { caller: "a", want: 0, heard: lease.id } }).verdicts[0]!;
    expect(own.allowed).toBe(false);
    expect(own.waitMs).toBeUndefined();
    // a gives its lease back at its end having used 2 units: 6 come back, and b is admitted 6 times.
    counter.decide(limit, 0, 7_501, {
      lease: { caller: "a", want: 0, heard: lease.id, returned: [{ id: lease.id, units: 8, spanMs: 7_500, usedAtMs: [300, 400] }] },
    });
    expect(counter.decide(limit, 7, 7_502, { lease: { caller: "b", want: 0 } }).verdicts.map((v) => v.allowed)).toEqual([
      true,
      true,
      true,
      true,
      true,
      true,
      false,
    ]);
  });

  it("a lease whose grant never reached its isolate (the answer lost) is taken back whole at that isolate's next call", () => {
    const limit = { count: 800, intervalMs: 10_000 };
    const counter = new Counter(new MemoryCounterStore(), "k");
    const first = counter.decide(limit, 1, 0, { lease: { caller: "a", want: 8 } }).lease!;
    // a heard of `first`; the answer bringing `second` was lost.
    const second = counter.decide(limit, 1, 10, {
      lease: { caller: "a", want: 8, heard: first.id, returned: [{ id: first.id, units: first.units, spanMs: first.spanMs, usedAtMs: [] }] },
    }).lease!;
    expect(second.units).toBeGreaterThan(0);
    expect(counter.inspect(limit, 10).admissions).toBe(2 + second.units);
    counter.decide(limit, 1, 20, { lease: { caller: "a", want: 0, heard: first.id } });
    expect(counter.inspect(limit, 20).admissions).toBe(3);
  });

  it("first calls ask for a lease while most leases asked for so get used, and stop (but for a probe) once most come back unused", () => {
    const limit = { count: 800, intervalMs: 10_000 };
    const store = new MemoryCounterStore();
    const book = new LeaseBook({ caller: "a" });
    const grantOf = (name: string, now: number) => {
      const request = book.request(name, now);
      const { lease } = new Counter(store, name).decide(limit, 1, now, { lease: request });
      book.accept(name, limit, lease, now, request);
      return request;
    };
    // A fresh isolate asks on a counter's first call; a client that comes back is answered on it.
    expect(grantOf("warm", 0).want).toBeGreaterThan(0);
    expect(book.admit("warm", limit, 10)).toBeDefined();
    // One-off clients: each first lease ends unused (given back with the counter's next call, at its end).
    let asked = 0;
    for (let i = 0; i < 40; i++) {
      const request = grantOf(`once-${i}`, 100 + i);
      if (request.want > 0) asked++;
      book.request(`once-${i}`, 20_000 + i, "give-back");
    }
    // Eleven unused ones take the estimate below half: after them, only one first call in 16 asks.
    expect(asked).toBeGreaterThanOrEqual(11);
    expect(asked).toBeLessThan(16);
    const later = Array.from({ length: 32 }, (_, i) => book.request(`new-${i}`, 30_000 + i).want);
    expect(later.filter((want) => want > 0)).toHaveLength(2);
    // A counter called again soon still asks on its second call.
    expect(book.request("new-0", 30_100).want).toBeGreaterThan(0);
  });

  it("a lease given back at its end is renewed only when its client was still using it in the lease's later half", () => {
    const limit = { count: 800, intervalMs: 10_000 };
    const store = new MemoryCounterStore();
    const book = new LeaseBook({ caller: "a" });
    /** A lease for `name` at 0, used at `uses` (ms), then given back at its end: what the give-back asks for. */
    const giveBackAfter = (name: string, uses: readonly number[]) => {
      const { lease } = callFrom(book, new Counter(store, name), limit, 0, name);
      for (const t of uses) expect(book.admit(name, limit, t)).toBeDefined();
      return book.request(name, lease!.spanMs + 1, "give-back");
    };
    // A burst at the start, then nothing: a renewal would only come back unused, at the cost of a call.
    expect(giveBackAfter("burst", [1, 2, 3]).want).toBe(0);
    // Used up to the end: the client is still here, and its next request finds a lease.
    expect(giveBackAfter("steady", [1, 1_000, 2_000]).want).toBeGreaterThan(0);
    // Used once, late: too little to tell.
    expect(giveBackAfter("once", [2_000]).want).toBe(0);
  });

  it("a lease is short only without a sign the client keeps coming to this isolate: its first, or after one left unused", () => {
    const limit = { count: 800, intervalMs: 10_000 };
    const counter = new Counter(new MemoryCounterStore(), "k");
    const book = new LeaseBook({ caller: "a" });
    const call = (now: number) => callFrom(book, counter, limit, now);
    // The first lease: short (a quarter of the interval).
    const first = call(0);
    expect(first.request.short).toBe(true);
    expect(first.lease!.spanMs).toBe(limit.intervalMs / 4);
    // Used once (a client at one request per 1.3 s over many isolates), then run out.
    expect(book.admit("k", limit, 1_300)).toBeDefined();
    expect(book.admit("k", limit, first.lease!.spanMs + 100)).toBeUndefined();
    // The next is a whole lease: a short one would again end after a use or two, and each costs a give-back.
    const second = call(first.lease!.spanMs + 100);
    expect(second.request.short).toBeUndefined();
    expect(second.lease!.spanMs).toBe((3 * limit.intervalMs) / 4);
    // Left unused: the next call asks for none, and the one after for a short lease again.
    const later = first.lease!.spanMs + 100 + second.lease!.spanMs + 100;
    expect(call(later).request.want).toBe(0);
    expect(call(later + 10).request.short).toBe(true);
  });

  it("after a lease left unused, an isolate asks for none while its client's requests come further apart than that lease lasted", () => {
    const limit = { count: 800, intervalMs: 10_000 };
    const counter = new Counter(new MemoryCounterStore(), "k");
    const book = new LeaseBook({ caller: "a" });
    const call = (now: number) => callFrom(book, counter, limit, now).request.want;
    // The first call brings a short lease (2.5 s); the client comes back here only every 3 s.
    expect(call(0)).toBeGreaterThan(0);
    // No more leases: each would end unused and cost a call to give back.
    expect([3_000, 6_000, 9_000, 12_000, 15_000].map(call)).toEqual([0, 0, 0, 0, 0]);
    // The client speeds up: its next request here comes 1 s later, and that call asks again.
    expect(call(16_000)).toBeGreaterThan(0);
  });

  it("while requests wait for lent units, the room those units free goes to requests, not to new leases", () => {
    const limit = { count: 160, intervalMs: 10_000 };
    const counter = new Counter(new MemoryCounterStore(), "k");
    // a is lent 8 units (a first lease: a quarter of the interval) and uses none.
    const lease = counter.decide(limit, 1, 0, { lease: { caller: "a", want: 8, short: true } }).lease!;
    expect(lease.units).toBe(8);
    // b fills the rest of the window; its next request is told to wait for a's units.
    expect(counter.decide(limit, 151, 1, { lease: { caller: "b", want: 0 } }).verdicts.every((v) => v.allowed)).toBe(true);
    expect(counter.decide(limit, 1, 2, { lease: { caller: "b", want: 0 } }).verdicts[0]!.waitMs).toBeGreaterThan(0);
    // a gives them back unused: 8 places free.
    counter.decide(limit, 0, lease.spanMs + 1, {
      lease: { caller: "a", want: 0, heard: lease.id, returned: [{ id: lease.id, units: 8, spanMs: lease.spanMs, usedAtMs: [] }] },
    });
    // c is admitted but lent nothing, though room is left; the 7 places left go to requests.
    const c = counter.decide(limit, 1, lease.spanMs + 2, { lease: { caller: "c", want: 8 } });
    expect(c.verdicts[0]!.allowed).toBe(true);
    expect(c.lease).toBeUndefined();
    expect(counter.decide(limit, 8, lease.spanMs + 3, { lease: { caller: "b", want: 0 } }).verdicts.map((v) => v.allowed)).toEqual([
      ...Array(7).fill(true),
      false,
    ]);
    // An interval after the last wait, leases are lent again.
    const later = counter.decide(limit, 1, 2 + limit.intervalMs + 1, { lease: { caller: "c", want: 8 } });
    expect(later.lease?.units).toBeGreaterThan(0);
  });
});
