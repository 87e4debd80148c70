import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ReservationLedger, restoreAdmissions, SlidingWindow, type Reservation, type Snapshot } from "../../../src/limiter/index.ts";

const limit = { count: 15, intervalMs: 10_000 };

describe("restoring with an idle snapshot", () => {
  it("restores the snapshot's times exactly, where reservations alone over-count", () => {
    const window = new SlidingWindow(limit);
    const ledger = new ReservationLedger(limit);
    let persisted: Reservation[] = [];
    for (const t of [0, 0, 0, 0, 0, 3_000, 3_000, 3_000, 3_000, 3_000, 3_000, 3_000, 3_000, 3_000, 3_000]) {
      expect(window.hit(t).allowed).toBe(true);
      if (ledger.onAdmit(t)) persisted = ledger.live(t);
    }
    // Reservations alone place admissions as late as they could have been: room frees late.
    const coarse = new SlidingWindow(limit);
    coarse.seed(restoreAdmissions(persisted, limit, 6_000));
    expect(coarse.peek(10_000).allowed).toBe(false);

    const snapshot: Snapshot = { at: 6_000, times: window.admissions(6_000) };
    ledger.checkpoint();
    const exact = new SlidingWindow(limit);
    exact.seed(restoreAdmissions(ledger.live(6_000), limit, 6_000, snapshot));
    expect(exact.admissions(6_000)).toEqual(window.admissions(6_000));
    expect(exact.peek(9_999).allowed).toBe(false);
    expect(exact.peek(10_000).allowed).toBe(true); // the promise Retry-After made before the restart
  });

  it("property: snapshot at idleness + later reservations never under-count", () => {
    const arrivals = fc.array(fc.integer({ min: 0, max: 4_000 }), { minLength: 1, maxLength: 60 });
    fc.assert(
      fc.property(arrivals, fc.integer({ min: 0, max: 59 }), fc.integer({ min: 0, max: 20_000 }), (gaps, split, restartAfter) => {
        const window = new SlidingWindow(limit);
        const ledger = new ReservationLedger(limit);
        let persisted: Reservation[] = [];
        let snapshot: Snapshot | undefined;
        let now = 0;
        gaps.forEach((gap, i) => {
          now += gap;
          if (i === split) {
            // The object went idle here: snapshot, checkpoint.
            snapshot = { at: now, times: window.admissions(now) };
            ledger.checkpoint();
            persisted = [];
          }
          if (window.hit(now).allowed && ledger.onAdmit(now)) persisted = ledger.live(now);
        });
        const restartAt = now + restartAfter;
        const restored = new SlidingWindow(limit);
        restored.seed(restoreAdmissions(persisted, limit, restartAt, snapshot));
        // At every later moment the restored window is at least as full as the true one.
        for (let t = restartAt; t <= restartAt + limit.intervalMs; t += 500) {
          expect(restored.size(t)).toBeGreaterThanOrEqual(window.size(t));
        }
      }),
      { numRuns: 300 },
    );
  });
});
