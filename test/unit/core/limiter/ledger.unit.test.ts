import { describe, expect, test } from "vitest";
import { ReservationLedger, restoreAdmissions } from "../../../../src/core/limiter/ledger.ts";

const limit = { count: 100, intervalMs: 1000 }; // defaults: maxBatch 5, spanMs 100

describe("ReservationLedger policy", () => {
  test("slow start: 1, then doubling while reservations fill, capped at maxBatch", () => {
    const ledger = new ReservationLedger(limit);
    const opened: number[] = [];
    for (let i = 0; i < 40; i++) {
      const r = ledger.onAdmit(10);
      if (r) {
        expect(r.until).toBe(r.n === 1 ? 10 : 110); // one admission: its exact time
        opened.push(r.n);
      }
    }
    expect(opened).toEqual([1, 2, 4, 5, 5, 5, 5, 5, 5, 5]);
  });

  test("an admission is covered only while the reservation has slots and now <= until", () => {
    const ledger = new ReservationLedger(limit, { maxBatch: 8, spanMs: 100 });
    expect(ledger.onAdmit(0)).toEqual({ until: 0, n: 1 }); // one admission: its exact time
    expect(ledger.onAdmit(0)).toEqual({ until: 100, n: 2 });
    expect(ledger.onAdmit(100)).toBeUndefined();
    // Expired with 2 of 2 used -> doubled to 4.
    expect(ledger.onAdmit(101)).toEqual({ until: 201, n: 4 });
    expect(ledger.onAdmit(150)).toBeUndefined();
    // Expired with 2 of 4 used -> back to what was used.
    expect(ledger.onAdmit(202)).toEqual({ until: 302, n: 2 });
    expect(ledger.onAdmit(202)).toBeUndefined();
    // 2 of 2 used (expired since, but it did fill up): doubles.
    expect(ledger.onAdmit(400)).toEqual({ until: 500, n: 4 });
    // After a whole idle interval: slow start again.
    expect(ledger.onAdmit(500 + 1000 + 1)).toEqual({ until: 1501, n: 1 });
  });

  test("live() is what storage must hold: opened and loaded records, pruned once out of every window", () => {
    const ledger = new ReservationLedger(limit, { maxBatch: 1, spanMs: 100 });
    ledger.load([{ until: 50, n: 7 }]);
    ledger.onAdmit(0);
    ledger.onAdmit(500);
    expect(ledger.live(500)).toEqual([
      { until: 50, n: 7 },
      { until: 0, n: 1 },
      { until: 500, n: 1 },
    ]);
    expect(ledger.live(1000)).toEqual([
      { until: 50, n: 7 },
      { until: 500, n: 1 },
    ]);
    expect(ledger.live(1050)).toEqual([{ until: 500, n: 1 }]);
    expect(ledger.live(1500)).toEqual([]);
  });

  test("loaded records are never reused for new admissions", () => {
    const ledger = new ReservationLedger(limit);
    ledger.load([{ until: 10_000, n: 50 }]);
    expect(ledger.onAdmit(100)).toEqual({ until: 100, n: 1 });
  });

  test("live() hands out copies", () => {
    const ledger = new ReservationLedger(limit);
    ledger.onAdmit(0);
    ledger.live(0)[0]!.n = 99;
    expect(ledger.live(0)).toEqual([{ until: 0, n: 1 }]);
  });

  test("setLimit re-derives default maxBatch and spanMs, explicit options stay", () => {
    const ledger = new ReservationLedger(limit);
    ledger.setLimit({ count: 6000, intervalMs: 10_000 });
    expect(ledger.onAdmit(0)).toEqual({ until: 0, n: 1 });
    expect(ledger.onAdmit(0)).toEqual({ until: 1000, n: 2 });
    const fixed = new ReservationLedger(limit, { spanMs: 7, maxBatch: 2 });
    fixed.setLimit({ count: 6000, intervalMs: 10_000 });
    expect(fixed.onAdmit(0)).toEqual({ until: 0, n: 1 });
    expect(fixed.onAdmit(0)).toEqual({ until: 7, n: 2 });
    expect(fixed.onAdmit(0)).toBeUndefined();
    expect(fixed.onAdmit(0)).toEqual({ until: 7, n: 2 });
  });

  test("rejects bad options, limits and records", () => {
    expect(() => new ReservationLedger({ count: 0, intervalMs: 1 })).toThrow(/limit\.count/);
    expect(() => new ReservationLedger(limit, { maxBatch: 0 })).toThrow(/maxBatch/);
    expect(() => new ReservationLedger(limit, { spanMs: 1.5 })).toThrow(/spanMs/);
    const ledger = new ReservationLedger(limit);
    expect(() => ledger.load([{ until: 1, n: 0 }])).toThrow(/reservation\.n/);
    expect(() => ledger.load([{ until: Number.NaN, n: 1 }])).toThrow(/reservation\.until/);
    expect(ledger.live(0)).toEqual([]);
  });
});

describe("restoreAdmissions", () => {
  test("n admissions at min(until, now), expired records dropped, ascending", () => {
    const records = [
      { until: 1500, n: 2 }, // still open at now: counted at now
      { until: 1200, n: 1 },
      { until: 300, n: 5 }, // until <= now - intervalMs: dropped
      { until: 301, n: 1 },
    ];
    expect(restoreAdmissions(records, limit, 1300)).toEqual([301, 1200, 1300, 1300]);
  });

  test("keeps every admission still in the window, past count too: a limit raised later must see them", () => {
    const records = [
      { until: 900, n: 3 },
      { until: 950, n: 2 },
      { until: 500, n: 1000 },
    ];
    expect(restoreAdmissions(records, { count: 4, intervalMs: 1000 }, 1000)).toHaveLength(1005);
    expect(restoreAdmissions(records, { count: 4, intervalMs: 1000 }, 1000).slice(-5)).toEqual([900, 900, 900, 950, 950]);
    expect(restoreAdmissions(records, { count: 4, intervalMs: 400 }, 1000)).toEqual([900, 900, 900, 950, 950]);
  });

  test("nothing persisted restores nothing; bad input throws", () => {
    expect(restoreAdmissions([], limit, 0)).toEqual([]);
    expect(() => restoreAdmissions([{ until: 1, n: -1 }], limit, 0)).toThrow(RangeError);
    expect(() => restoreAdmissions([], { count: 1, intervalMs: 0 }, 0)).toThrow(RangeError);
    expect(() => restoreAdmissions([], limit, Number.NaN)).toThrow(RangeError);
  });
});
