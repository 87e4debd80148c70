import TinyQueue from "tinyqueue";
import { LEASE_MIN_COUNT, MAX_LEASE_MS, type LeaseGrant, type LeaseReturn } from "./lease.ts";
import type { SlidingWindow } from "./sliding-window.ts";
import type { Limit, Verdict } from "./types.ts";

/*
 * The object's side of admission leases (docs/counting.md, "Admission leases"): which units it has
 * lent and to whom, how many more it may lend, and what a request refused only because of lent
 * units should do (wait for them to come back). The isolate's side is the LeaseBook (lease.ts).
 *
 * Leased units are counted in the window as admissions at the lease's end, so the window never
 * holds more than `count` real admissions whatever the isolates do. What stays open is a client
 * refused while units lent to other isolates sit unused: every isolate gives its lease back by the
 * lease's end (unprompted, lease-book.ts), so instead of a 429 the object answers "ask again when
 * the first of those leases is back" (`waitMs`), and sizes what it lends from the room left, so a
 * client at or below 90% of its limit never meets lent units at all.
 */

/** How long after a lease's end the object still expects it back before it counts it as used. */
export const GIVE_BACK_GRACE_MS = 1_000;
/** Shortest lease worth granting. */
const MIN_LEASE_MS = 10;
/** Most window entries a lease carries for the isolate's exact answers (`expiringMs`). */
const MAX_EXPIRING = 1_024;
/**
 * Leases out that storage lists at most (the newest): the stored value stays small however many
 * isolates hold one, and one left out is counted in full after a restart (safe, as before).
 */
const MAX_STORED_LENT = 256;
/** Callers whose newest call number a desk remembers (the leases out remember theirs beyond it). */
const MAX_CALLERS = 1_024;
/** Of the room not taken by real admissions, the share lent at once (the rest stays for callers without a lease). */
const LENT_SHARE = 1 / 2;

/** A lease as the object remembers it until it comes back. */
interface Lent {
  readonly seq: number;
  readonly until: number;
  readonly units: number;
  readonly spanMs: number;
  readonly caller: string;
  /** The number of the call it was granted to (`LeaseRequest.call`), when the caller numbers its calls. */
  readonly call?: number;
}

/**
 * What storage keeps of a desk (`Counter` writes it with the counter), so an object restarted while
 * leases are out still takes them back when they come, instead of counting their unused units for
 * an interval after their end. It lists at least every lease whose units the stored window still
 * holds (a lease taken back since the last write is listed until the next: storage still counts
 * its units, so taking it back again after a restart is exact).
 */
export interface StoredDesk {
  /** The desk's lease ids: `${prefix}-${seq}`. */
  readonly prefix: string;
  /** The last sequence number used. */
  readonly seq: number;
  readonly lent: readonly (Lent & { readonly id: string })[];
}

/** The leases one counter has lent and not had back (kept in storage too: `stored`, `restore`). */
export class LeaseDesk {
  readonly #lent = new Map<string, Lent>();
  /** Lease ids: unique per counter (a restarted desk goes on from the stored prefix and sequence). */
  #prefix = Math.random().toString(36).slice(2, 10);
  #seq = 0;
  /** When a request was last told to wait for lent units: no new lease for an interval after. */
  #waitedAt = Number.NEGATIVE_INFINITY;
  /** When each request told to wait asks again (its place among the waiters frees then). */
  readonly #waiting = new TinyQueue<number>([], (a, b) => a - b);
  /** The newest call number heard from each caller (memory only: the leases out carry theirs too). */
  readonly #newestCall = new Map<string, number>();

  /**
   * A lease given back: its units leave the window and the uses it reports take their place, at
   * their own times (each no later than the units' `until`, and covered in storage by the lease's
   * reservation). A lease this desk does not know (granted before a restart, or given back
   * already) is left counted in full: never fewer admissions than happened.
   */
  takeBack(returned: LeaseReturn, window: SlidingWindow): boolean {
    const held = this.#lent.get(returned.id);
    if (!held || !fits(returned, held)) return false;
    this.#lent.delete(returned.id);
    window.release(held.until, held.units);
    const grantedAt = held.until - held.spanMs;
    if (returned.usedAtMs.length > 0) window.seed(returned.usedAtMs.map((t) => grantedAt + t));
    return true;
  }

  /**
   * Notes call number `call` from `caller`; false when the call is stale: the caller has sent a
   * later one that reached this desk first (it gave up on this one), so this one's word on leases
   * is out of date and a lease granted to it would never be heard of. A caller that does not
   * number its calls is always taken at its word.
   */
  hear(caller: string, call: number | undefined): boolean {
    if (typeof call !== "number" || !Number.isSafeInteger(call)) return true;
    let newest = this.#newestCall.get(caller) ?? Number.NEGATIVE_INFINITY;
    // After a restart the map is empty, but the leases out still name their calls.
    for (const held of this.#lent.values()) if (held.caller === caller && held.call !== undefined) newest = Math.max(newest, held.call);
    if (call <= newest) return false;
    this.#newestCall.delete(caller);
    this.#newestCall.set(caller, call);
    if (this.#newestCall.size > MAX_CALLERS) this.#newestCall.delete(this.#newestCall.keys().next().value!);
    return true;
  }

  /**
   * Takes back whole the leases of `caller` it never heard of: granted after `heard` (the newest it
   * accepted when it sent call number `call`) to an earlier call, by answers it never got or gave
   * up on, so never used. A caller has one call in flight per counter, so a lease granted to a call
   * sent before this one and not heard of by then never will be. One granted to a later call (that
   * call overtook this one on the way) is not this call's to judge.
   */
  forgetUnheard(caller: string, heard: string | undefined, call: number | undefined, window: SlidingWindow, now: number, intervalMs: number): boolean {
    const [prefix, seq] = typeof heard === "string" ? heard.split("-") : [];
    const heardSeq = prefix === this.#prefix ? Number(seq) : 0;
    const sentBefore = (held: Lent) => typeof call !== "number" || held.call === undefined || held.call < call;
    let forgot = false;
    for (const [id, held] of this.#lent) {
      if (held.caller !== caller || held.seq <= heardSeq || !sentBefore(held)) continue;
      this.#lent.delete(id);
      // One whose units have left the window changes nothing any more.
      if (held.until + intervalMs <= now) continue;
      window.release(held.until, held.units);
      forgot = true;
    }
    return forgot;
  }

  /**
   * The lease `caller` may have now, sized from the room left: at most `want`, `count/16`, and
   * what keeps every unit lent at once within LENT_SHARE of the room real admissions leave. Its
   * units are reserved in `window` (the caller records them in storage). Undefined when none.
   */
  grant(
    limit: Limit,
    window: SlidingWindow,
    now: number,
    caller: string,
    want: number,
    short = false,
    call?: number,
  ): { until: number; grant: LeaseGrant } | undefined {
    const { count, intervalMs } = limit;
    if (count < LEASE_MIN_COUNT || !(want >= 1)) return undefined;
    // Requests wait for lent units to come back: room they free goes to them, not to new leases
    // (which would keep them waiting past what a request may wait, then refuse them early).
    if (now - this.#waitedAt < intervalMs) return undefined;
    this.#forgetStale(now, intervalMs);
    const times = window.admissions(now);
    const lent = this.#lentUnits(now, intervalMs);
    const real = times.length - lent;
    const units = Math.min(Math.floor(want), Math.floor(count / 16), Math.floor((count - real) * LENT_SHARE) - lent);
    if (units < 1) return undefined;
    // Long enough to save calls far from the limit, short where unused units would keep a client
    // waiting: the span shrinks with the room left (below half of `count` free), and a lease to an
    // isolate with no sign yet that the client keeps coming back (`short`) lasts a quarter of the
    // interval. A request waits for lent units at most one span.
    const full = Math.min(Math.floor((3 * intervalMs) / 4), MAX_LEASE_MS);
    const roomy = Math.min(1, (2 * (count - real)) / count);
    let spanMs = Math.floor(Math.min(short ? intervalMs / 4 : full, full * roomy));
    // End the lease before more than MAX_EXPIRING entries leave the window, so the grant stays small.
    if (times.length > MAX_EXPIRING) spanMs = Math.min(spanMs, times[MAX_EXPIRING]! + intervalMs - now - 1);
    if (spanMs < MIN_LEASE_MS) return undefined;
    const until = now + spanMs;
    let leaving = 0;
    while (leaving < times.length && times[leaving]! + intervalMs <= until) leaving++;
    const id = `${this.#prefix}-${++this.#seq}`;
    window.reserve(until, units, now);
    this.#lent.set(id, { seq: this.#seq, until, units, spanMs, caller, ...(typeof call === "number" && { call }) });
    return {
      until,
      grant: {
        id,
        units,
        spanMs,
        base: times.length - leaving,
        ...(times.length > leaving && { oldestBaseMs: times[leaving]! - now }),
        expiringMs: times.slice(0, leaving).map((t) => t - now),
      },
    };
  }

  /**
   * A refusal of `caller` at `now` as it should be answered. When units lent to other isolates and
   * still expected back would make room (`inWindow` minus them is below `count`), "ask again" once
   * the first of them is due back (`waitMs`), but only while fewer requests wait than those units:
   * each unit that comes back unused admits one waiting request at most, so a request past that
   * could only wait to be refused. It is refused at once, told to retry when the first of them is
   * due back (the soonest room may appear), cacheable until then. A client whose own admissions
   * fill the window waits for nothing. Otherwise the refusal, cacheable only until the first such
   * lease could come back unused.
   */
  refusal(verdict: Verdict, caller: string | undefined, inWindow: number, limit: Limit, now: number, reaskMs?: number): Verdict {
    let back = 0;
    let dueAt = Number.POSITIVE_INFINITY;
    let endsAt = Number.POSITIVE_INFINITY;
    for (const held of this.#lent.values()) {
      if (held.caller === caller || held.until + limit.intervalMs <= now) continue;
      endsAt = Math.min(endsAt, held.until);
      if (held.until + GIVE_BACK_GRACE_MS <= now) continue;
      back += held.units;
      // Due at its end; once that has passed, by the end of the grace.
      dueAt = Math.min(dueAt, held.until > now ? held.until + 1 : held.until + GIVE_BACK_GRACE_MS);
    }
    if (back > 0 && inWindow - back < limit.count) {
      // Until the first lent unit is due back, or sooner when the caller asks again sooner (its
      // `reaskMs`): a lease taken back before its end (used, or given back) then ends the wait.
      const waitMs = Math.max(1, Math.min(dueAt - now, reaskMs ?? Number.POSITIVE_INFINITY));
      // Waits promised and not yet due: each ends when its request asks again.
      while (this.#waiting.length > 0 && this.#waiting.peek()! <= now) this.#waiting.pop();
      if (this.#waiting.length >= Math.min(back, limit.count - (inWindow - back))) {
        return { ...verdict, retryInMs: Math.min(verdict.retryInMs, waitMs), cacheForMs: Math.min(verdict.cacheForMs ?? verdict.retryInMs, waitMs) };
      }
      this.#waitedAt = now;
      this.#waiting.push(now + waitMs);
      return { ...verdict, retryInMs: Math.min(verdict.retryInMs, waitMs), cacheForMs: 0, waitMs };
    }
    return endsAt < now + verdict.retryInMs ? { ...verdict, cacheForMs: Math.max(0, endsAt - now) } : verdict;
  }

  /** What storage keeps of this desk (`StoredDesk`): the newest MAX_STORED_LENT leases out. */
  stored(): StoredDesk {
    const lent = [...this.#lent].slice(-MAX_STORED_LENT);
    return { prefix: this.#prefix, seq: this.#seq, lent: lent.map(([id, held]) => ({ id, ...held })) };
  }

  /**
   * After a restart: the leases storage lists, as if this desk had granted them, and its ids going
   * on from there. A malformed record is skipped (its units stay counted in full: safe).
   */
  restore(stored: StoredDesk | undefined): void {
    if (!stored || typeof stored.prefix !== "string" || !Number.isSafeInteger(stored.seq) || !Array.isArray(stored.lent)) return;
    this.#prefix = stored.prefix;
    this.#seq = Math.max(this.#seq, stored.seq);
    for (const lent of stored.lent) {
      const { id, seq, until, units, spanMs, caller, call } = lent ?? ({} as Partial<StoredDesk["lent"][number]>);
      if (typeof id !== "string" || typeof caller !== "string" || ![seq, until, units, spanMs].every(Number.isFinite)) continue;
      this.#lent.set(id, { seq: seq!, until: until!, units: units!, spanMs: spanMs!, caller, ...(Number.isSafeInteger(call) && { call }) });
    }
  }

  /** True while any lease may still be used: memory must know it when it comes back. */
  anyLive(now: number): boolean {
    for (const held of this.#lent.values()) if (held.until >= now) return true;
    return false;
  }

  /** Units lent and still counted in the window at `now` (an interval after their end, given back or not, they leave it). */
  #lentUnits(now: number, intervalMs: number): number {
    let units = 0;
    for (const held of this.#lent.values()) if (held.until + intervalMs > now) units += held.units;
    return units;
  }

  #forgetStale(now: number, intervalMs: number): void {
    for (const [id, held] of this.#lent) if (held.until + intervalMs <= now) this.#lent.delete(id);
  }
}

/** True when `returned` can be the lease `held` (same size and span) and its uses fit it. */
function fits(returned: LeaseReturn, held: { units: number; spanMs: number }): boolean {
  const { units, spanMs, usedAtMs } = returned;
  return (
    units === held.units &&
    spanMs === held.spanMs &&
    Array.isArray(usedAtMs) &&
    usedAtMs.length <= units &&
    usedAtMs.every((t) => Number.isFinite(t) && t >= 0 && t <= spanMs)
  );
}
