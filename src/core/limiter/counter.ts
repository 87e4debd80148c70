import { returnsOf, type LeaseGrant, type LeaseRequest } from "./lease.ts";
import { LeaseDesk, type StoredDesk } from "./lease-desk.ts";
import { ReportInbox } from "./report-inbox.ts";
import { ReservationLedger, restoreAdmissions, type LedgerOptions, type Reservation, type Snapshot } from "./ledger.ts";
import { SlidingWindow } from "./sliding-window.ts";
import type { FallbackReport } from "./fallback.ts";
import { verdictOf, type Limit, type Verdict, type WindowAnswer } from "./types.ts";

/** What storage holds for one counter: its reservations and, once it went idle, its exact window. */
export interface StoredCounter {
  readonly limit: Limit;
  readonly reservations: readonly Reservation[];
  readonly snapshot?: Snapshot;
  /** The leases out when it was written (lease-desk.ts), so a restarted object can take them back. */
  readonly desk?: StoredDesk;
}

/**
 * Where counters persist, by key. Synchronous, like a Durable Object's SQLite KV API: a write is
 * made before the answer leaves (the object's output gate holds the answer until it is durable).
 */
export interface CounterStore {
  get(key: string): StoredCounter | undefined;
  put(key: string, value: StoredCounter): void;
  delete(key: string): void;
}

/**
 * How long after its last reservation a counter counts as idle and writes its exact window. Well
 * below the runtime's eviction of idle objects (10 s locally, longer on Cloudflare), so the usual
 * restart, after idleness, restores the window exactly and keeps every Retry-After promise.
 */
export const SETTLE_MS = 2_000;

/** A counter's state as `inspect` reads it. Durations are ms from the moment of inspection. */
export interface Inspection {
  readonly limit: Limit;
  /** Admissions in the window now. */
  readonly admissions: number;
  /** Admissions still possible now. */
  readonly remaining: number;
  /** Until the window frees a unit (its oldest admission expires); 0 when empty. */
  readonly resetInMs: number;
  /** Until a request would be admitted; 0 when there is room. */
  readonly retryInMs: number;
  /** How long ago each admission in the window was made, oldest first. */
  readonly ages: readonly number[];
  /** "memory": the live window; "storage": rebuilt as a restart would (can only over-count). */
  readonly source: "memory" | "storage";
}

/** What a call brings besides its hits. */
export interface DecideExtras {
  /** Admissions made elsewhere (an isolate's local fallback) that this counter may not have seen. */
  readonly recorded?: readonly FallbackReport[];
  /** Which isolate calls, units it would lease, and a lease it gives back (lease.ts). */
  readonly lease?: LeaseRequest;
  /** The call's id, unique per isolate: a later fallback report may name it (fallback.ts). */
  readonly call?: string;
}

/**
 * A counter's answer to one call: a verdict per hit, in order, and the units leased to the caller,
 * if any. The counter object answers one per batch, in this shape (its RPC: isolates and objects of
 * different versions exchange it).
 */
export interface CounterAnswer {
  readonly verdicts: Verdict[];
  /** Units leased to the caller, if any. */
  readonly lease?: LeaseGrant;
}

/** What `decide` tells the object besides its answer: whether storage was written, and when to settle. */
export interface Upkeep {
  /**
   * True when a reservation was written or a lease taken back (storage then over-counts until a
   * snapshot): the caller arranges a `settle` no later than `settleAt`.
   */
  readonly wrote: boolean;
  /**
   * When the counter next needs `settle`: SETTLE_MS after its last write when a snapshot would make
   * a restart more exact, otherwise (every reservation already exact) when its storage goes stale.
   */
  readonly settleAt: number;
}

/**
 * One exact sliding-window counter with its persistence policy: the admission log lives in
 * memory; storage holds batched reservations (which can only over-count after a restart, see
 * ledger.ts), written when a new batch opens, and an exact snapshot written once per idle spell
 * (`settle`). A new Counter over the same store and key is the counter after a restart. The
 * Durable Object, the unit-test simulation and the benches all run this one loop.
 */
export class Counter {
  readonly #store: CounterStore;
  readonly #key: string;
  readonly #options: LedgerOptions | undefined;
  #window: SlidingWindow | undefined;
  #ledger: ReservationLedger | undefined;
  #limit: Limit | undefined;
  #snapshot: Snapshot | undefined;
  /** Time of the last reservation this instance wrote (its last burst of activity). */
  #lastWrite = Number.NEGATIVE_INFINITY;
  /** Leases granted by this instance and not given back (lease-desk.ts). */
  readonly #desk = new LeaseDesk();
  /** Admissions reported by isolates' fallback windows (report-inbox.ts). */
  readonly #inbox = new ReportInbox();
  /** A lease came back since the last snapshot: memory holds its uses, storage its units at `until`. */
  #takenBack = false;
  /**
   * Whether storage holds this counter, known once this instance has read or written it (undefined
   * before): the object's alarm settles every counter in memory, most of them not due yet, and a
   * storage read each time made every alarm cost a read per counter the object holds.
   */
  #inStorage: boolean | undefined;

  constructor(store: CounterStore, key: string, options?: LedgerOptions) {
    this.#store = store;
    this.#key = key;
    this.#options = options;
  }

  /**
   * Decides `hits` requests at `now`, in order, exactly as that many single calls would, after
   * counting `recorded` (admissions made elsewhere that this counter has not seen) and taking back
   * a returned lease. Records the admitted ones, writing a reservation first when one is needed,
   * then leases the caller some units when it asks and the window has room to spare (lease.ts).
   */
  decide(limit: Limit, hits: number, now: number, { recorded = [], lease, call }: DecideExtras = {}): CounterAnswer & Upkeep {
    const { window, ledger } = this.#load(limit, now);
    let reserved = false;
    // A caller that does not say who it is (an isolate of an older version) may be anyone.
    const caller = typeof lease?.caller === "string" && lease.caller !== "" ? lease.caller : undefined;
    let tookBack = false;
    for (const returned of returnsOf(lease)) if (this.#desk.takeBack(returned, window)) tookBack = true;
    // A call the caller gave up on, overtaken by its next one, neither releases nor gets a lease.
    const fresh = caller !== undefined && this.#desk.hear(caller, lease?.call);
    if (fresh && this.#desk.forgetUnheard(caller, lease?.heard, lease?.call, window, now, limit.intervalMs)) tookBack = true;
    if (tookBack) this.#takenBack = true;
    const { times: elsewhere, released } = this.#inbox.take(recorded, limit, now, window);
    // Storage still holds the released ones, as reservations: a snapshot once idle makes it exact.
    if (released) this.#takenBack = true;
    if (elsewhere.length > 0) {
      window.seed(elsewhere);
      // Reserved as if made now: later than the truth, so a restart can only over-count them.
      for (let i = 0; i < elsewhere.length; i++) if (ledger.onAdmit(now)) reserved = true;
    }
    const verdicts: Verdict[] = [];
    for (let i = 0; i < hits; i++) {
      const answer = window.hit(now);
      if (answer.allowed && ledger.onAdmit(now)) reserved = true;
      verdicts.push(this.#verdict(answer, now, caller, limit, window, reaskMsOf(lease)));
    }
    if (typeof call === "string") this.#inbox.noteCall(call, verdicts, now, limit);
    let granted: LeaseGrant | undefined;
    if (lease && caller && fresh && lease.want > 0 && verdicts.every((v) => v.allowed)) {
      const plan = this.#desk.grant(limit, window, now, caller, lease.want, lease.short === true, lease.call);
      if (plan) {
        ledger.lease(plan.until, plan.grant.units, now);
        reserved = true;
        granted = plan.grant;
      }
    }
    let settleAt = this.#lastWrite + SETTLE_MS;
    if (reserved) {
      const live = ledger.live(now);
      this.#persist(limit, live);
      this.#lastWrite = now;
      settleAt = this.#exactInStorage() ? staleAt(live, this.#snapshot, limit) : now + SETTLE_MS;
    } else if (tookBack) {
      // Storage still holds the lease's units at its end: a snapshot once idle makes it exact.
      this.#lastWrite = now;
      settleAt = now + SETTLE_MS;
    }
    return { verdicts, ...(granted && { lease: granted }), wrote: reserved || tookBack, settleAt };
  }

  /**
   * The verdict for `caller`. A refusal made only because units leased to other isolates fill the
   * window says to ask again once they are due back (`waitMs`, lease-desk.ts); another says how
   * long it may be cached (`cacheForMs`) when that is shorter than its retry time: while another
   * isolate holds a lease, and not at all within an interval of a fallback report (other
   * isolates' reports of the same outage may still arrive and push the retry time back, so each
   * denial must ask again to tell a true Retry-After).
   */
  #verdict(answer: WindowAnswer, now: number, caller: string | undefined, limit: Limit, window: SlidingWindow, reaskMs: number | undefined): Verdict {
    const verdict = verdictOf(answer, now);
    if (verdict.allowed) return verdict;
    const refusal = this.#desk.refusal(verdict, caller, window.size(now), limit, now, reaskMs);
    if (refusal.waitMs === undefined && this.#inbox.recent(now, limit)) return { ...refusal, cacheForMs: 0 };
    return refusal;
  }

  /** Whether a restart now would rebuild exactly the window in memory (no snapshot needed). */
  #exactInStorage(): boolean {
    return !this.#takenBack && this.#ledger !== undefined && this.#ledger.exact();
  }

  /**
   * The idle-time work, run from the object's alarm: once idle for SETTLE_MS, write the exact
   * window (a snapshot) so a restart loses nothing; once nothing stored can count against a
   * request any more, delete it. Returns when to settle again, or undefined once deleted.
   */
  settle(now: number): number | undefined {
    if (this.#inStorage === false) return undefined;
    // A counter in memory knows what it stored; only one the object found in storage reads it.
    const stored = this.#window ? undefined : this.#store.get(this.#key);
    if (!this.#window && !stored) return undefined;
    const limit = this.#limit ?? stored!.limit;
    // A snapshot only matters when some reservation is inexact (holds several admissions).
    if (this.#window && this.#ledger && !this.#exactInStorage()) {
      if (now < this.#lastWrite + SETTLE_MS) return this.#lastWrite + SETTLE_MS;
      if (!this.#snapshot || this.#snapshot.at < this.#lastWrite) {
        this.#snapshot = { at: now, times: this.#window.admissions(now) };
        this.#ledger.checkpoint();
        this.#takenBack = false;
        this.#persist(limit, []);
      }
    }
    const snapshot = this.#snapshot ?? stored?.snapshot;
    const reservations = this.#ledger ? this.#ledger.live(now) : stored!.reservations;
    const lastUseful = staleAt(reservations, snapshot, limit);
    if (lastUseful <= now) {
      this.#window = this.#ledger = this.#limit = this.#snapshot = undefined;
      this.#store.delete(this.#key);
      this.#inStorage = false;
      return undefined;
    }
    return lastUseful;
  }

  /**
   * What the counter holds at `now` under `limit`, read without recording, writing or loading
   * anything (the admin API's "read without spending"): a counter not in memory is rebuilt from
   * storage as a restart would, into a throwaway list, so the inspection can only over-count.
   */
  inspect(limit: Limit, now: number): Inspection {
    let times: readonly number[];
    if (this.#window) times = this.#window.admissions(now);
    else {
      const stored = this.#store.get(this.#key);
      times = stored ? restoreAdmissions(stored.reservations, limit, now, stored.snapshot) : [];
    }
    const inWindow = times.filter((t) => t > now - limit.intervalMs);
    const n = inWindow.length;
    return {
      limit,
      admissions: n,
      remaining: Math.max(0, limit.count - n),
      resetInMs: n === 0 ? 0 : inWindow[0]! + limit.intervalMs - now,
      // The admission whose expiry brings the window below the limit (sliding-window.ts).
      retryInMs: n < limit.count ? 0 : inWindow[n - limit.count]! + limit.intervalMs - now,
      ages: inWindow.map((t) => now - t),
      source: this.#window ? "memory" : "storage",
    };
  }

  /**
   * True once nothing has been written for SETTLE_MS and no lease is out: after `settle` at such a moment, storage holds
   * the window exactly, so the object may drop this counter from memory and reload it on demand.
   */
  quiet(now: number): boolean {
    if (now < this.#lastWrite + SETTLE_MS) return false;
    // A lease still out will come back: memory must know it then, to take it back exactly.
    return !this.#desk.anyLive(now);
  }

  /** Admissions in the window at `now` (loads the counter if it is not in memory). */
  size(limit: Limit, now: number): number {
    return this.#load(limit, now).window.size(now);
  }

  #persist(limit: Limit, reservations: readonly Reservation[]): void {
    const desk = this.#desk.stored();
    this.#store.put(this.#key, {
      limit,
      reservations,
      ...(this.#snapshot && { snapshot: this.#snapshot }),
      ...(desk.lent.length > 0 && { desk }),
    });
    this.#inStorage = true;
  }

  #load(limit: Limit, now: number): { window: SlidingWindow; ledger: ReservationLedger } {
    if (!this.#window || !this.#ledger) {
      const stored = this.#store.get(this.#key);
      this.#inStorage = stored !== undefined;
      // Storage holds one interval: what came before it is unknown (setLimit assumes the worst).
      this.#window = new SlidingWindow(limit, { forgottenUpTo: now - limit.intervalMs });
      this.#ledger = new ReservationLedger(limit, this.#options);
      if (stored) {
        // After an eviction or restart: the snapshot's times are exact; every reservation written
        // after it is assumed used as late as it could have been, so the rebuilt window is at
        // least as full as the lost one.
        this.#window.seed(restoreAdmissions(stored.reservations, limit, now, stored.snapshot));
        this.#ledger.load(stored.reservations);
        this.#snapshot = stored.snapshot;
        // Leases granted before the restart are taken back when they come, as if never forgotten.
        this.#desk.restore(stored.desk);
      }
      this.#limit = limit;
    } else if (this.#limit && (this.#limit.count !== limit.count || this.#limit.intervalMs !== limit.intervalMs)) {
      // The rule table changed (a deploy): keep counting under the new limit.
      this.#window.setLimit(limit, now);
      this.#ledger.setLimit(limit);
      this.#limit = limit;
    }
    return { window: this.#window, ledger: this.#ledger };
  }
}

/** The last moment anything stored can still count against a request. */
function staleAt(reservations: readonly Reservation[], snapshot: Snapshot | undefined, limit: Limit): number {
  let latest = Number.NEGATIVE_INFINITY;
  for (const r of reservations) latest = Math.max(latest, r.until);
  for (const t of snapshot?.times ?? []) latest = Math.max(latest, t);
  return latest + limit.intervalMs;
}

/** A CounterStore in memory: the unit-test simulation and the benches. */
export class MemoryCounterStore implements CounterStore {
  readonly #values = new Map<string, StoredCounter>();
  /** Writes so far (puts and deletes). */
  writes = 0;

  get(key: string): StoredCounter | undefined {
    return this.#values.get(key);
  }

  put(key: string, value: StoredCounter): void {
    this.writes++;
    // A copy, as real storage serializes: later changes to the caller's arrays must not leak in.
    this.#values.set(key, structuredClone(value));
  }

  delete(key: string): void {
    this.writes++;
    this.#values.delete(key);
  }

  keys(): string[] {
    return [...this.#values.keys()];
  }
}

/** A lease request's `reaskMs` when it is a positive finite number (what a caller sends is not trusted further). */
function reaskMsOf(lease: LeaseRequest | undefined): number | undefined {
  const reask = lease?.reaskMs;
  return typeof reask === "number" && Number.isFinite(reask) && reask >= 1 ? reask : undefined;
}
