import { DurableObject } from "cloudflare:workers";
import { FixedWindow, ReservationLedger, restoreAdmissions, SlidingWindow } from "../limiter/index.ts";
import type { Algorithm, Decision, Limit, Reservation } from "../limiter/index.ts";

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

/** Storage layout: one key; reservations can only over-count after a restart (see ledger.ts). */
interface Persisted {
  readonly limit: Limit;
  readonly reservations: readonly Reservation[];
}
const KEY = "ledger";

/**
 * One sliding-window counter for one (region, rule, identity). The exact admission log lives in
 * memory; storage holds only batched reservations, written when a new batch opens (a few times per
 * second at 600 req/s instead of once per request). Each `hit` runs synchronously, so concurrent
 * calls are serialized by the object and can never both take the last unit.
 */
export class RateLimiter extends DurableObject {
  #window: SlidingWindow | undefined;
  #ledger: ReservationLedger | undefined;
  #limit: Limit | undefined;
  #alarmSet = false;
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
      const persisted: Persisted = { limit, reservations: ledger.live(now) };
      this.ctx.storage.kv.put(KEY, persisted);
      this.#scheduleCleanup(now, limit);
    }
    return toVerdict(decision, now);
  }

  /** Deletes everything once no reservation can matter any more; otherwise tries again later. */
  override async alarm(): Promise<void> {
    this.#alarmSet = false;
    const stored = this.ctx.storage.kv.get<Persisted>(KEY);
    if (!stored) return;
    const now = this.now();
    const limit = this.#limit ?? stored.limit;
    const live = this.#ledger ? this.#ledger.live(now) : stored.reservations.filter((r) => r.until > now - limit.intervalMs);
    if (live.length === 0) {
      this.#window = this.#ledger = this.#limit = undefined;
      await this.ctx.storage.deleteAll();
      return;
    }
    this.#scheduleCleanup(now, limit, live);
  }

  #load(limit: Limit, now: number): { window: SlidingWindow; ledger: ReservationLedger } {
    if (!this.#window || !this.#ledger) {
      const stored = this.ctx.storage.kv.get<Persisted>(KEY);
      this.#window = new SlidingWindow(limit);
      this.#ledger = new ReservationLedger(limit);
      if (stored) {
        // After an eviction or restart: every reserved admission is assumed to have happened as
        // late as it could have, so the rebuilt window is at least as full as the lost one.
        this.#window.seed(restoreAdmissions(stored.reservations, limit, now));
        this.#ledger.load(stored.reservations);
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

  /** At most one pending alarm: at the time the newest reservation stops mattering. */
  #scheduleCleanup(now: number, limit: Limit, live = this.#ledger?.live(now) ?? []): void {
    if (this.#alarmSet) return;
    const latest = live.reduce((max, r) => Math.max(max, r.until), now);
    this.#alarmSet = true;
    void this.ctx.storage.setAlarm(latest + limit.intervalMs);
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
