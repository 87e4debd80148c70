import { DurableObject } from "cloudflare:workers";
import { FixedWindow, ReservationLedger, restoreAdmissions, SlidingWindow, verdictOf } from "../limiter/index.ts";
import type { Algorithm, Limit, Reservation, Snapshot, Verdict } from "../limiter/index.ts";

/** What the counter answers per hit (the limiter's one answer type, see src/limiter/types.ts). */
export type { Verdict } from "../limiter/index.ts";

/** Requests for one counter that arrived together at an isolate, decided in one call. */
export interface HitBatch {
  readonly limit: Limit;
  readonly algorithm?: Algorithm;
  /** How many requests, decided in order. */
  readonly hits: number;
  /**
   * Admissions the isolate made on its own while this object did not answer (LocalFallback),
   * recorded before the hits are decided, so the object counts them too.
   */
  readonly recorded?: readonly number[];
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

/** Most requests one call decides; a gateway batch is bounded by what arrives during one call. */
export const MAX_BATCH = 100_000;

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

  /** Decide one request against `limit`, recording it when admitted. */
  hit(limit: Limit, algorithm: Algorithm = "sliding-window"): Verdict {
    return this.hitBatch({ limit, algorithm, hits: 1 })[0]!;
  }

  /**
   * Decide `hits` requests that arrived together, in order, exactly as that many `hit` calls at
   * this instant would (the gateway coalesces concurrent requests for one counter into one call).
   */
  hitBatch({ limit, algorithm = "sliding-window", hits, recorded = [] }: HitBatch): Verdict[] {
    if (!Number.isInteger(hits) || hits < 1 || hits > MAX_BATCH) throw new RangeError(`hits must be a whole number from 1 to ${MAX_BATCH}`);
    const now = this.now();
    const verdicts: Verdict[] = [];
    if (algorithm === "fixed-window") {
      const fixed = (this.#fixed ??= new FixedWindow(limit));
      for (let i = 0; i < hits; i++) verdicts.push(verdictOf(fixed.hit(now), now));
      return verdicts;
    }
    const { window, ledger } = this.#load(limit, now);
    let reserved = false;
    const elsewhere = recorded.filter((t) => Number.isFinite(t)).slice(-limit.count);
    if (elsewhere.length > 0) {
      window.seed(elsewhere);
      // Reserved as if made now: later than the truth, so a restart can only over-count them.
      for (let i = 0; i < elsewhere.length; i++) if (ledger.onAdmit(now)) reserved = true;
    }
    for (let i = 0; i < hits; i++) {
      const decision = window.hit(now);
      if (decision.allowed && ledger.onAdmit(now)) reserved = true;
      verdicts.push(verdictOf(decision, now));
    }
    if (reserved) {
      // Not awaited: the output gate holds this reply until the write is durable, and writes made
      // by concurrent calls coalesce into one batch.
      this.#persist(limit, ledger.live(now));
      this.#lastWrite = now;
      void this.ctx.storage.setAlarm(now + SETTLE_MS);
    }
    return verdicts;
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
