import { DurableObject } from "cloudflare:workers";
import { FixedWindow, ReservationLedger, restoreAdmissions, SlidingWindow } from "../limiter/index.ts";
import type { Algorithm, Decision, Limit, Reservation, Snapshot } from "../limiter/index.ts";

/** What the counter answers per hit. Durations, not instants, so callers never mix two clocks. */
export interface Verdict {
  readonly allowed: boolean;
  readonly limit: number;
  readonly remaining: number;
  /** ms until the window next frees one unit (0 when the window is empty). */
  readonly resetInMs: number;
  /** ms until a request could be admitted (0 when there is room now). */
  readonly retryInMs: number;
}

/**
 * Storage layout, one key: batched reservations (which can only over-count after a restart, see
 * ledger.ts) and, once the object has gone idle, a snapshot of the exact admission times.
 */
interface Persisted {
  readonly limit: Limit;
  readonly reservations: readonly Reservation[];
  readonly snapshot?: Snapshot;
}
const KEY = "ledger";

/**
 * How long after its last reservation an object counts as idle and writes its exact window. Well
 * below the runtime's eviction of idle objects (10 s locally, longer on Cloudflare), so the usual
 * restart, after idleness, restores the window exactly and keeps every Retry-After promise.
 */
export const SETTLE_MS = 2_000;

/**
 * One sliding-window counter for one (region, rule, identity). The exact admission log lives in
 * memory; storage holds batched reservations, written when a new batch opens (a few times per
 * second at 600 req/s instead of once per request), and an exact snapshot written once per idle
 * spell. Each `hit` runs synchronously, so concurrent calls are serialized by the object and can
 * never both take the last unit.
 */
export class RateLimiter extends DurableObject {
  #window: SlidingWindow | undefined;
  #ledger: ReservationLedger | undefined;
  #limit: Limit | undefined;
  #snapshot: Snapshot | undefined;
  /** Time of the last reservation this instance wrote (its last burst of activity). */
  #lastWrite = Number.NEGATIVE_INFINITY;
  /** Only under the development setting LIMITER_ALGORITHM=fixed-window; memory only. */
  #fixed: FixedWindow | undefined;

  /** The clock; tests replace it through `runInDurableObject` to move time. */
  now: () => number = () => Date.now();

  /** Decide one request against `limit`, recording it when admitted. One RPC per request. */
  hit(limit: Limit, algorithm: Algorithm = "sliding-window"): Verdict {
    const now = this.now();
    if (algorithm === "fixed-window") return toVerdict((this.#fixed ??= new FixedWindow(limit)).hit(now), now);
    const { window, ledger } = this.#load(limit, now);
    const decision = window.hit(now);
    if (decision.allowed && ledger.onAdmit(now)) {
      // Not awaited: the output gate holds this reply until the write is durable, and writes made
      // by concurrent hits coalesce into one batch.
      this.#persist(limit, ledger.live(now));
      this.#lastWrite = now;
      void this.ctx.storage.setAlarm(now + SETTLE_MS);
    }
    return toVerdict(decision, now);
  }

  /**
   * Once idle: write the exact window (a snapshot) so a restart loses nothing. Later: delete
   * everything once nothing can matter any more. Otherwise: look again when something might.
   */
  override async alarm(): Promise<void> {
    const stored = this.ctx.storage.kv.get<Persisted>(KEY);
    if (!stored) return;
    const now = this.now();
    const limit = this.#limit ?? stored.limit;
    if (this.#window && this.#ledger) {
      if (now < this.#lastWrite + SETTLE_MS) {
        await this.ctx.storage.setAlarm(this.#lastWrite + SETTLE_MS);
        return;
      }
      if (!this.#snapshot || this.#snapshot.at < this.#lastWrite) {
        this.#snapshot = { at: now, times: this.#window.admissions(now) };
        this.#ledger.checkpoint();
        this.#persist(limit, []);
      }
    }
    const snapshot = this.#snapshot ?? stored.snapshot;
    const reservations = this.#ledger ? this.#ledger.live(now) : stored.reservations;
    // The last moment anything stored can still count against a request.
    const lastUseful = Math.max(
      ...reservations.map((r) => r.until),
      ...(snapshot?.times ?? []),
      Number.NEGATIVE_INFINITY,
    ) + limit.intervalMs;
    if (lastUseful <= now) {
      this.#window = this.#ledger = this.#limit = this.#snapshot = undefined;
      await this.ctx.storage.deleteAll();
      return;
    }
    await this.ctx.storage.setAlarm(lastUseful);
  }

  #persist(limit: Limit, reservations: readonly Reservation[]): void {
    const persisted: Persisted = this.#snapshot ? { limit, reservations, snapshot: this.#snapshot } : { limit, reservations };
    this.ctx.storage.kv.put(KEY, persisted);
  }

  #load(limit: Limit, now: number): { window: SlidingWindow; ledger: ReservationLedger } {
    if (!this.#window || !this.#ledger) {
      const stored = this.ctx.storage.kv.get<Persisted>(KEY);
      this.#window = new SlidingWindow(limit);
      this.#ledger = new ReservationLedger(limit);
      if (stored) {
        // After an eviction or restart: the snapshot's times are exact; every reservation written
        // after it is assumed used as late as it could have been, so the rebuilt window is at
        // least as full as the lost one.
        this.#window.seed(restoreAdmissions(stored.reservations, limit, now, stored.snapshot));
        this.#ledger.load(stored.reservations);
        this.#snapshot = stored.snapshot;
      }
      this.#limit = limit;
    } else if (this.#limit && (this.#limit.count !== limit.count || this.#limit.intervalMs !== limit.intervalMs)) {
      // The rule table changed in a deploy: keep counting under the new limit.
      this.#window.setLimit(limit);
      this.#ledger.setLimit(limit);
      this.#limit = limit;
    }
    return { window: this.#window, ledger: this.#ledger };
  }
}

function toVerdict(decision: Decision, now: number): Verdict {
  return {
    allowed: decision.allowed,
    limit: decision.limit,
    remaining: decision.remaining,
    resetInMs: decision.resetAt - now,
    retryInMs: decision.retryAt - now,
  };
}
