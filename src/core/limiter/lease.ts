import { setBounded } from "./bounded-map.ts";
import type { Limit, Verdict } from "./types.ts";

/*
 * Admission leases (docs/counting.md): so that a warm counter does not cost a Durable Object call
 * per request, the object lends the isolate that asks a few units of its window at once. The
 * object counts them as admissions made at the lease's end (`until`), the latest moment the
 * isolate may use them, so each leaves the window no earlier than the real use it stands for: no
 * window ever holds more than `count` real admissions, whatever the isolates do. The isolate gives
 * the lease back, with the times it used, by the lease's end at the latest: the object forgets the
 * units and records those times, and is exact again.
 *
 * This file holds what both sides exchange and the isolate's side (LeaseBook); the object's side
 * is lease-desk.ts. The object also sends what the isolate needs to answer exactly as it would:
 * how many admissions stay in the window for the whole lease (`base`) and the times of those that
 * leave it during the lease (`expiringMs`).
 *
 * Any isolate may hold a lease, however many serve one client: the object sizes what it lends from
 * the room left (lease-desk.ts), each isolate gives its leases back by their end unprompted (the
 * gateway's Counting arranges it), renews one before it runs out from a request answered on it,
 * and a request the object refuses only because of units lent to others waits for them to come
 * back instead of being refused.
 */

/** Counters below this count are never leased: every request asks the object. */
export const LEASE_MIN_COUNT = 20;
/** A lease lasts three quarters of the interval, at most this long. */
export const MAX_LEASE_MS = 10_000;
/** What an isolate asks for the first time, and at least afterwards. */
const FIRST_WANT = 8;
const MIN_WANT = 4;
const MAX_WANT = 4_096;
/** Ended leases an isolate keeps to give back, per counter: an older one past this stays counted (safe). */
const MAX_RETURNS = 4;
/**
 * A lease used at least this often, the last time in the later half of its time in use, is renewed
 * when given back at its end: its client is still here. One used only early (a burst that has
 * ended) is not: a renewal nobody uses costs a give-back call of its own.
 */
const KEEP_WARM_USES = 2;
/** How far one ended first lease moves the isolate's estimate that first leases get used. */
const FIRST_LEASE_WEIGHT = 1 / 16;
/** While the estimate is below half, one first call in this many still asks, to see whether it has changed. */
const FIRST_LEASE_PROBE = 16;

/** What an isolate asks of the object with a call: who it is, units to lease, and leases it gives back. */
export interface LeaseRequest {
  /** The calling isolate: an id it chose at random, the same for all its calls. */
  readonly caller: string;
  readonly want: number;
  readonly returned?: readonly LeaseReturn[];
  /**
   * The newest lease of this counter the isolate heard of (accepted). Any later one it was granted
   * never reached it (the answer was lost or came after the isolate gave up on the call), so it
   * was never used: the object takes it back whole.
   */
  readonly heard?: string;
  /**
   * This isolate's number for the call, rising with every call it sends. A call the isolate gave
   * up on may reach the object after the isolate's next one: the object then takes nothing it says
   * about leases as the isolate's newest word (`heard` is older than what the isolate has heard
   * since), and lends it nothing (it will never hear of it).
   */
  readonly call?: number;
  /**
   * Lend for a short while: no sign yet that this isolate keeps receiving the client's requests
   * (its first lease of the counter, or its last one was hardly used), so units it may leave
   * unused come back soon.
   */
  readonly short?: boolean;
  /**
   * The longest this isolate has a request wait before it asks again (a few of its round trips to
   * the object): a request told to wait for lent units is told to ask again by then, so a lease
   * taken back in the meantime (used, or given back) ends its wait within round trips, not at the
   * lease's end.
   */
  readonly reaskMs?: number;
}

/** The leases a request gives back (an isolate of an older version sent one, not a list). */
export function returnsOf(request: LeaseRequest | undefined): readonly LeaseReturn[] {
  const returned = request?.returned as readonly LeaseReturn[] | LeaseReturn | undefined;
  if (returned === undefined || returned === null) return [];
  return Array.isArray(returned) ? returned : [returned as LeaseReturn];
}

/** A lease given back: which one, and when its units were used (ms after it was granted). */
export interface LeaseReturn {
  readonly id: string;
  readonly units: number;
  readonly spanMs: number;
  readonly usedAtMs: readonly number[];
}

/** A lease as the object grants it. Times are ms relative to the grant (the isolate's clock differs). */
export interface LeaseGrant {
  readonly id: string;
  readonly units: number;
  /** The units may be used for this long after the call was sent. */
  readonly spanMs: number;
  /** Admissions in the window at the grant that stay in it for the whole lease (leased units excluded). */
  readonly base: number;
  /** When the oldest of those was made (ms, <= 0), if any. */
  readonly oldestBaseMs?: number;
  /** When each admission that leaves the window during the lease was made (ms, <= 0), oldest first. */
  readonly expiringMs: readonly number[];
}

/**
 * A give-back takes the lease in use too when it ends within this long (at most a quarter of its
 * span): leases of one object ending close together go back with one call, not one call each.
 */
const GIVE_BACK_AHEAD_MS = 250;

/** Oldest entries a full LeaseBook looks at for one it may drop, per call. */
const PURGE_LOOK = 64;

interface Held {
  readonly grant: LeaseGrant;
  readonly limit: Limit;
  /** This isolate's clock when the call that brought the lease was sent. */
  readonly from: number;
  readonly usedAtMs: number[];
  /** Entries of `grant.expiringMs` already out of the window. */
  gone: number;
  /** Asked for on the isolate's first call to the counter (LeaseBook's estimate learns from it). */
  readonly first: boolean;
}

/** One counter's leases on this isolate: the one in use and those to give back. */
interface Leases {
  current?: Held;
  returns: LeaseReturn[];
  /** Until when the object counts the newest of `returns` (an interval after its end). */
  countsUntil: number;
  want: number;
  /** The last lease ended was used often enough to renew it when it is given back at its end. */
  warm: boolean;
  /** The newest lease accepted (`LeaseRequest.heard`). */
  heard?: string;
  /** Uses of the last lease ended: a client that used it at all is still coming here, so its next lease is not short. */
  lastUses: number;
  /** How long the last lease ended lasted. */
  lastSpanMs: number;
  /** When this isolate last had a request for the counter (a call or a use of a lease). */
  seenAt: number;
}

/**
 * What a call is for: requests to decide ("hits"), a lease about to run out renewed from a request
 * it answered ("renew"), or a lease given back at its end ("give-back", by a call of its own or
 * riding on another call to the object). Each gives back the lease in use (a give-back only once
 * it has ended or is about to), so one call both returns and renews.
 */
export type LeaseCall = "hits" | "renew" | "give-back";

/**
 * One isolate's leases, by counter name: decides requests locally while a lease lasts, renews it
 * as it runs out, and hands every ended lease back with the next call to that counter (the
 * gateway makes one at each lease's end). Bounded, but never by dropping a lease the object may
 * still count: while the book is full of live ones it asks for no new lease (a call per request,
 * never an early refusal).
 */
export class LeaseBook {
  readonly #counters = new Map<string, Leases>();
  /** When this isolate last called each counter it holds no lease for: a lease is asked for on a second call within MAX_LEASE_MS. */
  readonly #called = new Map<string, number>();
  /**
   * How likely a lease asked for on a counter's first call is to be used (moving average over the
   * ended ones, 1 to start): while it is at least half, first calls ask for one.
   */
  #firstLeasesUsed = 1;
  #firstCalls = 0;
  /** Calls sent so far (`LeaseRequest.call`). */
  #calls = 0;
  readonly #max: number;
  /** This isolate, as the objects know it (`LeaseRequest.caller`). */
  readonly caller: string;

  /** @param options.caller this isolate's id (random by default); options.maxCounters bounds its memory */
  constructor(options: { caller?: string; maxCounters?: number } = {}) {
    this.caller = options.caller ?? Math.random().toString(36).slice(2, 12);
    this.#max = options.maxCounters ?? 10_000;
  }

  /**
   * The request decided on this isolate's lease for `name` at `now`, or undefined when there is
   * none that can (used up, over, or for another limit: it is then ended, to be given back).
   */
  admit(name: string, limit: Limit, now: number): Verdict | undefined {
    const leases = this.#counters.get(name);
    const held = leases?.current;
    if (!leases || !held) return undefined;
    const { grant } = held;
    const at = Math.max(0, now - held.from);
    if (at > grant.spanMs || held.usedAtMs.length >= grant.units || held.limit.count !== limit.count || held.limit.intervalMs !== limit.intervalMs) {
      this.#end(leases, "over", now);
      return undefined;
    }
    const { intervalMs } = limit;
    const expiring = grant.expiringMs;
    while (held.gone < expiring.length && expiring[held.gone]! <= at - intervalMs) held.gone++;
    held.usedAtMs.push(at);
    leases.seenAt = now;
    const inWindow = grant.base + (expiring.length - held.gone) + held.usedAtMs.length;
    const remaining = Math.max(0, limit.count - inWindow);
    // The oldest admission in the window, as the object's exact window would say.
    const oldest = held.gone < expiring.length ? expiring[held.gone]! : grant.base > 0 ? grant.oldestBaseMs! : held.usedAtMs[0]!;
    const resetInMs = oldest + intervalMs - at;
    return { allowed: true, limit: limit.count, remaining, resetInMs, retryInMs: remaining > 0 ? 0 : Math.min(resetInMs, intervalMs) };
  }

  /**
   * True when the lease in use for `name` should be renewed now, by a call in the background
   * (the request that used it is answered already): it is used up, or has at most `aheadMs` left.
   */
  renewalDue(name: string, now: number, aheadMs: number): boolean {
    const held = this.#counters.get(name)?.current;
    if (!held) return false;
    return held.usedAtMs.length >= held.grant.units || now - held.from >= held.grant.spanMs - aheadMs;
  }

  /** True when `name` has a lease to give back at `now`: ended, over and not yet noticed, or ending soon (GIVE_BACK_AHEAD_MS). */
  owes(name: string, now: number): boolean {
    const leases = this.#counters.get(name);
    if (!leases) return false;
    const held = leases.current;
    return leases.returns.length > 0 || (held !== undefined && endsSoon(held, now));
  }

  /**
   * From when `name` may owe a give-back (`owes`): now while one is pending, else when its lease in
   * use ends soon; undefined when it holds nothing. The GiveBackRoster's order.
   */
  owedFrom(name: string, now: number): number | undefined {
    const leases = this.#counters.get(name);
    if (!leases) return undefined;
    if (leases.returns.length > 0) return now;
    const held = leases.current;
    return held && held.from + held.grant.spanMs - aheadOf(held);
  }

  /** True while `name` has a lease in use or one to give back. */
  holds(name: string): boolean {
    const leases = this.#counters.get(name);
    return leases !== undefined && (leases.current !== undefined || leases.returns.length > 0);
  }

  /**
   * What the next call for `name`, sent at `now`, asks: units, and the leases it gives back, the
   * one in use included (a give-back only once it ends soon, `owes`): requests queued because it could
   * not answer them, and its unused units must not count against them. What goes back stays here
   * until a call carrying it is answered (`accept`): a call lost with a cancelled request leaves it
   * to go with the next one (the object takes a lease back once).
   */
  request(name: string, now: number, kind: LeaseCall = "hits"): LeaseRequest {
    const leases = this.#counters.get(name);
    let want = leases?.want ?? FIRST_WANT;
    if (!leases) {
      // A lease on a counter's first call answers the client's next request here without a call,
      // and costs one more call (its give-back) when it comes back unused: first calls ask while
      // most such leases get used. Otherwise a counter this isolate calls once in a while asks
      // when it calls again soon, and a few first calls still ask, to notice a change.
      const last = this.#called.get(name);
      setBounded(this.#called, name, now, this.#max);
      const first = last === undefined || now - last > MAX_LEASE_MS;
      if (first && this.#firstLeasesUsed < 1 / 2 && ++this.#firstCalls % FIRST_LEASE_PROBE !== 0) want = 0;
    }
    const held = leases?.current;
    if (leases && held) {
      if (kind === "renew") want = renewalWant(held, now);
      if (kind !== "give-back" || endsSoon(held, now)) this.#end(leases, "call", now);
    }
    if (kind === "hits" && leases) {
      // The last lease went unused (a lease given back unused costs a call): ask again only once
      // the client's requests here come closer together than that lease lasted.
      if (leases.lastUses === 0 && now - leases.seenAt > leases.lastSpanMs) want = 0;
      leases.seenAt = now;
    }
    if (kind === "give-back") want = leases?.current || !leases?.warm ? 0 : leases.want;
    if (kind === "renew") leases!.want = want;
    if (want > 0 && !this.#hasRoom(now)) want = 0;
    const returned = leases?.returns ?? [];
    const heard = leases?.heard;
    // A renewal comes from a lease in use and a give-back renews only one its client still uses;
    // a request's call asks for a short one unless this isolate's last lease was used at all.
    const short = kind === "hits" && !(leases && leases.lastUses > 0);
    return {
      caller: this.caller,
      call: ++this.#calls,
      want,
      ...(returned.length > 0 && { returned: [...returned] }),
      ...(heard !== undefined && { heard }),
      ...(short && want > 0 && { short }),
    };
  }

  /** The object answered the call sent at `from` (this isolate's clock), with a lease or none. */
  accept(name: string, limit: Limit, grant: LeaseGrant | undefined, from: number, request: LeaseRequest): void {
    let leases = this.#counters.get(name);
    if (leases && request.returned) {
      const back = new Set(request.returned.map((r) => r.id));
      leases.returns = leases.returns.filter((r) => !back.has(r.id));
    }
    if (!grant) return;
    const first = !leases;
    // Never dropped for room (the class comment): at most the calls in flight past the bound.
    if (!leases)
      this.#counters.set(
        name,
        (leases = { returns: [], countsUntil: Number.NEGATIVE_INFINITY, want: request.want, warm: false, lastUses: 0, lastSpanMs: 0, seenAt: from }),
      );
    if (leases.current) this.#end(leases, "call", from);
    leases.current = { grant, limit, from, usedAtMs: [], gone: 0, first };
    leases.heard = grant.id;
  }

  /** Ends the lease in use at `now`, to be given back with the next call: it is "over" (used up, ran out, other limit) or a "call" is made anyway. */
  #end(leases: Leases, why: "over" | "call", now: number): void {
    const held = leases.current;
    if (!held) return;
    leases.current = undefined;
    const { id, units, spanMs } = held.grant;
    const used = held.usedAtMs.length;
    if (held.first) this.#firstLeasesUsed += FIRST_LEASE_WEIGHT * ((used > 0 ? 1 : 0) - this.#firstLeasesUsed);
    // Slow start, as the reservation ledger: used up means demand is higher, ask twice as many;
    // a lease that ran out part-used asks what it used; one cut short by a call, the same again.
    leases.want = used >= units ? Math.min(MAX_WANT, units * 2) : why === "call" ? units : Math.max(MIN_WANT, used);
    leases.warm = used >= KEEP_WARM_USES && stillInUse(held, now);
    leases.lastUses = used;
    leases.lastSpanMs = spanMs;
    leases.returns.push({ id, units, spanMs, usedAtMs: held.usedAtMs });
    // One given back too late stays counted: never fewer admissions than happened.
    if (leases.returns.length > MAX_RETURNS) leases.returns.shift();
    leases.countsUntil = Math.max(leases.countsUntil, held.from + spanMs + held.limit.intervalMs);
  }

  /**
   * True when a new lease fits in the book: below its bound, after dropping the oldest counters
   * whose leases the object no longer counts (an interval after their end: given back or not,
   * they change nothing any more). Looks at a few of the oldest only, so a book full of live
   * leases costs little per request.
   */
  #hasRoom(now: number): boolean {
    if (this.#counters.size < this.#max) return true;
    let looked = 0;
    for (const [name, leases] of this.#counters) {
      if (++looked > PURGE_LOOK) break;
      const held = leases.current;
      const live = held !== undefined && held.from + held.grant.spanMs + held.limit.intervalMs > now;
      if (!live && leases.countsUntil <= now) this.#counters.delete(name);
    }
    return this.#counters.size < this.#max;
  }
}

/** True when `held` has ended at `now`, or ends within GIVE_BACK_AHEAD_MS (at most a quarter of its span). */
function endsSoon(held: Held, now: number): boolean {
  return now - held.from > held.grant.spanMs - aheadOf(held);
}

/** How long before its end `held` goes back with a call going to its object anyway. */
function aheadOf(held: Held): number {
  return Math.min(GIVE_BACK_AHEAD_MS, held.grant.spanMs / 4);
}

/** True when `held`, ended at `now`, was last used in the later half of its time in use (or used up). */
function stillInUse(held: Held, now: number): boolean {
  const used = held.usedAtMs.length;
  if (used >= held.grant.units) return true;
  const heldFor = Math.min(held.grant.spanMs, Math.max(0, now - held.from));
  return used > 0 && held.usedAtMs[used - 1]! >= heldFor / 2;
}

/** Units to ask for when renewing `held` at `now`: its rate of use so far over a whole lease, with a quarter to spare, at most twice its size. */
function renewalWant(held: Held, now: number): number {
  const at = Math.max(1, now - held.from);
  const rate = held.usedAtMs.length / at;
  const want = Math.ceil(rate * held.grant.spanMs * 1.25);
  return Math.max(MIN_WANT, Math.min(MAX_WANT, held.grant.units * 2, want));
}
