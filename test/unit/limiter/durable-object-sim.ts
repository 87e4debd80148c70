import { type LedgerOptions, type Reservation, ReservationLedger, restoreAdmissions } from "../../../src/limiter/ledger.ts";
import { SlidingWindow } from "../../../src/limiter/sliding-window.ts";
import type { Decision, Limit } from "../../../src/limiter/types.ts";

/**
 * A Durable Object as the gateway will run it, minus the platform: an
 * in-memory window, a ledger, and `persisted` standing in for storage.
 * Storage is written (synchronously, before answering) only when the ledger
 * opens a reservation; a restart loses everything but `persisted`.
 */
export class SimulatedObject {
  readonly limit: Limit;
  readonly options: LedgerOptions | undefined;
  window: SlidingWindow;
  ledger: ReservationLedger;
  persisted: Reservation[] = [];
  /** Storage writes so far. */
  writes = 0;
  /** True admission times, across restarts. */
  readonly admitted: number[] = [];

  constructor(limit: Limit, options?: LedgerOptions) {
    this.limit = limit;
    this.options = options;
    this.window = new SlidingWindow(limit);
    this.ledger = new ReservationLedger(limit, options);
  }

  /** Handles one request at `now`. */
  request(now: number): Decision {
    const decision = this.window.hit(now);
    if (decision.allowed) {
      this.admitted.push(now);
      if (this.ledger.onAdmit(now) !== undefined) {
        this.persisted = this.ledger.live(now);
        this.writes++;
      }
    }
    return decision;
  }

  /** Evicted and rebuilt from storage at `now`. */
  restart(now: number): void {
    this.window = new SlidingWindow(this.limit);
    this.window.seed(restoreAdmissions(this.persisted, this.limit, now));
    this.ledger = new ReservationLedger(this.limit, this.options);
    this.ledger.load(this.persisted);
  }

  /** How many true admissions are in the window at `now`. */
  trueSize(now: number): number {
    return this.admitted.filter((t) => t > now - this.limit.intervalMs).length;
  }

  /** What a restart at `now` would put in the window (without restarting). */
  restoredSize(now: number): number {
    const probe = new SlidingWindow(this.limit);
    probe.seed(restoreAdmissions(this.persisted, this.limit, now));
    return probe.size(now);
  }
}
