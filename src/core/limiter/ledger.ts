import type { Limit } from "./types.ts";
import { assertLimit, assertTime, isPositiveInteger } from "./validate.ts";

/**
 * A persisted promise about the past: at most `n` admissions happened, all at
 * times `<= until`. Durable storage holds a handful of these instead of one
 * write per request.
 */
export interface Reservation {
  until: number;
  n: number;
  /**
   * Units leased to an isolate (lease.ts): usable until `until` even after this object restarts,
   * so a restart restores them at `until` itself, never earlier.
   */
  leased?: true;
}

/** Tuning for {@link ReservationLedger}; the defaults suit most limits. */
export interface LedgerOptions {
  /** Largest `n` a single reservation may take. Default `max(1, ceil(count / 20))`. */
  maxBatch?: number;
  /** How long a reservation stays usable after it is opened. Default `max(1, floor(intervalMs / 10))`. */
  spanMs?: number;
}

/** The reservation admissions are currently charged to, with its usage. */
interface OpenReservation {
  until: number;
  n: number;
  used: number;
}

/**
 * Decides when a Durable Object must write its rate-limit state so that it
 * need not write on every request, yet a restart never lets extra requests
 * through.
 *
 * Each admission must be covered by a persisted {@link Reservation} before it
 * is answered. A reservation opened at `t0` covers up to `n` admissions in
 * `[t0, t0 + spanMs]`. After a restart every reservation is assumed fully used
 * at its latest possible time (see {@link restoreAdmissions}), so the
 * restored window can only over-count. Unused slots are that over-count, so
 * `n` adapts like TCP slow start: it starts at 1, doubles while reservations
 * fill up, and falls back to what was actually used when one expires half
 * empty, and starts again from 1 after a whole idle interval. A trickle
 * thus reserves about what it uses, while a steady burst writes a few times
 * per second instead of per request (600/s against 6000/10s: about 2).
 */
export class ReservationLedger {
  #limit: Limit;
  readonly #options: LedgerOptions;
  #maxBatch = 1;
  #spanMs = 1;
  /** Every reservation that may still matter, opened here or loaded. */
  #records: Reservation[] = [];
  /** The reservation new admissions are charged to; never a loaded one. */
  #open: OpenReservation | undefined;

  /** @throws RangeError on an invalid limit or non-positive-integer options. */
  constructor(limit: Limit, options: LedgerOptions = {}) {
    this.#options = { ...options };
    if (options.maxBatch !== undefined && !isPositiveInteger(options.maxBatch)) {
      throw new RangeError(`maxBatch must be a positive integer, got ${String(options.maxBatch)}`);
    }
    if (options.spanMs !== undefined && !isPositiveInteger(options.spanMs)) {
      throw new RangeError(`spanMs must be a positive integer, got ${String(options.spanMs)}`);
    }
    this.#limit = limit; // replaced by a validated copy just below
    this.setLimit(limit);
  }

  /**
   * Call for every admission at `now`, BEFORE answering. Returns a
   * Reservation that must be persisted (with the rest of `live(now)`) when a
   * new one had to be opened, otherwise undefined (the admission is covered
   * by an already persisted reservation).
   */
  onAdmit(now: number): Reservation | undefined {
    assertTime(now);
    const open = this.#open;
    if (open !== undefined && open.used < open.n && now <= open.until) {
      open.used++;
      return undefined;
    }
    const n = this.#nextBatch(open, now);
    // A reservation for one admission is made by that admission: its time is exact, so a restart
    // restores it exactly and a trickle needs no snapshot (`exact()`).
    const until = n === 1 ? now : now + this.#spanMs;
    this.#open = { until, n, used: 1 };
    this.#prune(now);
    this.#records.push({ until, n });
    return { until, n };
  }

  /**
   * Records `n` units leased at `now` to an isolate that may use them until `until`: they must be
   * persisted (with the rest of `live(now)`) before the lease is answered.
   */
  lease(until: number, n: number, now: number): void {
    assertTime(until, "lease until");
    if (!isPositiveInteger(n)) throw new RangeError(`leased units must be a positive integer, got ${String(n)}`);
    this.#prune(now);
    this.#records.push({ until, n, leased: true });
  }

  /**
   * Reservations that can still matter at `now` (until > now - intervalMs):
   * exactly what storage should hold. Its length is bounded: roughly
   * `intervalMs / spanMs` reservations that expired part-used, plus
   * `2 * count / maxBatch` full ones, plus a few per slow-start ramp.
   */
  live(now: number): Reservation[] {
    assertTime(now);
    this.#prune(now);
    return this.#records.map(copyOf);
  }

  /**
   * True when every reservation since the last checkpoint holds exactly one admission at its
   * `until`, or is a lease (restored at its `until`, exactly as the window holds it until it is
   * given back): storage then already says what the window holds, and a snapshot would add nothing.
   */
  exact(): boolean {
    return this.#records.every((r) => r.n === 1 || r.leased);
  }

  /**
   * Used after a restart: load persisted records so later onAdmit/live calls
   * include them. They are never reused for new admissions, since how many
   * of their slots were taken is unknown.
   * @throws RangeError on a malformed record (a bug upstream; guessing could under-count).
   */
  load(records: readonly Reservation[]): void {
    for (const r of records) assertReservation(r);
    for (const r of records) this.#records.push(copyOf(r));
  }

  /**
   * Call once the exact admission times have been persisted (a {@link Snapshot}): every
   * reservation so far is covered by it, so they are forgotten, and the open one is closed so
   * that the next admission opens (and persists) a reservation the snapshot does not cover.
   */
  checkpoint(): void {
    this.#records = [];
    if (this.#open) this.#open = { ...this.#open, n: this.#open.used };
  }

  /**
   * Switches to a new limit. Default `maxBatch`/`spanMs` follow it; the open
   * reservation stays valid (its promise does not depend on the limit).
   * @throws RangeError on an invalid limit.
   */
  setLimit(limit: Limit): void {
    assertLimit(limit);
    this.#limit = { count: limit.count, intervalMs: limit.intervalMs };
    this.#maxBatch = this.#options.maxBatch ?? Math.max(1, Math.ceil(limit.count / 20));
    this.#spanMs = this.#options.spanMs ?? Math.max(1, Math.floor(limit.intervalMs / 10));
  }

  /** Size of the next reservation, given the one it replaces. */
  #nextBatch(previous: OpenReservation | undefined, now: number): number {
    // Slow start: first reservation, or after an idle stretch of a whole
    // interval, where past demand says nothing about the next burst.
    if (previous === undefined || now > previous.until + this.#limit.intervalMs) return 1;
    // Filled up: demand is at least this high, grow to halve the write rate.
    if (previous.used >= previous.n) return Math.min(this.#maxBatch, previous.n * 2);
    // Expired part-used: reserve what one span actually needed.
    return Math.min(this.#maxBatch, Math.max(1, previous.used));
  }

  /** Forgets reservations whose admissions are all out of every window from `now` on. */
  #prune(now: number): void {
    const cutoff = now - this.#limit.intervalMs;
    if (this.#records.some((r) => r.until <= cutoff)) {
      this.#records = this.#records.filter((r) => r.until > cutoff);
    }
  }
}

/**
 * The exact admission times still in the window at `at`, written when an object has gone idle,
 * so that a restart after idleness (the usual eviction) restores the window exactly and keeps
 * every Retry-After promise made before it.
 */
export interface Snapshot {
  at: number;
  times: number[];
}

/**
 * Timestamps to seed a fresh SlidingWindow after a restart: the snapshot's
 * times exactly, and each record not covered by it (until > snapshot.at)
 * contributes n admissions at min(until, now) (the latest they can have
 * happened, so the restored window can only over-count); anything out of the
 * window at `now` dropped. Every one in the window is kept, even past
 * `count`: under a limit raised later they still count. Ascending order.
 * @throws RangeError on an invalid limit, `now`, or malformed record.
 */
export function restoreAdmissions(records: readonly Reservation[], limit: Limit, now: number, snapshot?: Snapshot): number[] {
  assertLimit(limit);
  assertTime(now);
  for (const r of records) assertReservation(r);
  const cutoff = now - limit.intervalMs;
  // Snapshot times are kept as they are, even ahead of `now` (units leased until then).
  const out = (snapshot?.times ?? []).filter((t) => t > cutoff);
  for (const r of records) {
    // `>=`: a record made in the same millisecond as the snapshot, after it, is not in it (an
    // exact one-admission record has `until` = its admission time).
    if (!(r.until > cutoff && (snapshot === undefined || r.until >= snapshot.at))) continue;
    // A batch reservation's unused slots died with the old instance (its admissions happened by
    // `now`); leased units may still be used until `until` by the isolate holding them.
    const at = r.leased ? r.until : Math.min(r.until, now);
    for (let i = 0; i < r.n; i++) out.push(at);
  }
  return out.sort((a, b) => a - b);
}

function copyOf(r: Reservation): Reservation {
  return r.leased ? { until: r.until, n: r.n, leased: true } : { until: r.until, n: r.n };
}

/** Throws unless `r` has a finite `until` and a positive integer `n`. */
function assertReservation(r: Reservation): void {
  assertTime(r.until, "reservation.until");
  if (!isPositiveInteger(r.n)) throw new RangeError(`reservation.n must be a positive integer, got ${String(r.n)}`);
}
