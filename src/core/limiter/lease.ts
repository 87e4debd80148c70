import { setBounded } from "./bounded-map.ts";
import type { SlidingWindow } from "./sliding-window.ts";
import type { Limit, Verdict } from "./types.ts";

/*
 * Admission leases (docs/counting.md): so that a warm counter does not cost a Durable Object
 * call per request, the object may hand the isolate that asks a few units of its window at once.
 * The object counts them as admissions made at the lease's end (`until`), the latest moment the
 * isolate may use them, so each leaves the window no earlier than the real use it stands for: no
 * window ever holds more than `count` real admissions, whatever the isolates do. When the isolate
 * comes back (its lease used up or over), it gives the lease back with the times it used: the
 * object forgets the units and records those times, and is exact again.
 *
 * The object also sends what the isolate needs to answer exactly as the object would: how many
 * admissions stay in the window for the whole lease (`base`) and the times of those that leave it
 * during the lease (`expiringMs`), so every decision and every header is the exact sliding window's.
 *
 * Sole caller: units leased to one isolate and not used are units another isolate cannot admit, so
 * a client spread over several isolates would be refused early. The object therefore leases only
 * to an isolate that calls a counter alone: none while another isolate has called it within the
 * last interval (`CallerHistory`). An isolate that has not yet called alone for SOLE_CALLS calls
 * and a whole interval gets at most 1% of `count` (the first calls of a counter can not tell who
 * comes next); one that has, the usual sizes. What a second isolate can meet unused is therefore at most 1% of `count`,
 * or one lease of an isolate that served the counter alone before it (docs/counting.md).
 */

/** Counters below this count are never leased: every request asks the object. */
export const LEASE_MIN_COUNT = 20;
/** A lease lasts a quarter of the interval, at most this long. */
export const MAX_LEASE_MS = 10_000;
/** Shortest lease worth granting. */
const MIN_LEASE_MS = 10;
/** Most window entries a lease carries for the isolate's exact answers (`expiringMs`). */
const MAX_EXPIRING = 64;
/** What an isolate asks for the first time, and at least afterwards. */
const FIRST_WANT = 8;
const MIN_WANT = 4;
const MAX_WANT = 4_096;

/** Calls an isolate makes alone before it is leased the usual sizes rather than 1% of `count`. */
export const SOLE_CALLS = 3;

/** What an isolate asks of the object with a call: who it is, units to lease, and a lease it gives back. */
export interface LeaseRequest {
  /** The calling isolate: an id it chose at random, the same for all its calls. */
  readonly caller: string;
  readonly want: number;
  readonly returned?: LeaseReturn;
}

/**
 * Who has been calling one counter, as the object sees it: the last caller, how many calls in a
 * row it made, since when it has called alone, and when a different caller was last seen. In
 * memory only: a restarted object starts again from "nobody yet", which leases at most 1%.
 */
export class CallerHistory {
  #last: string | undefined;
  #streak = 0;
  /** When the last caller's calls alone began: its first call, or its first after another caller's. */
  #aloneSince = Number.POSITIVE_INFINITY;
  #sharedAt = Number.NEGATIVE_INFINITY;

  /** Notes a call from `caller` at `now` (undefined: a caller that did not say, so anyone). */
  called(caller: string | undefined, now: number): void {
    if (caller === undefined) {
      this.#sharedAt = now;
      this.#last = undefined;
      return;
    }
    if (caller === this.#last) {
      this.#streak++;
      return;
    }
    if (this.#last !== undefined) this.#sharedAt = now;
    this.#last = caller;
    this.#streak = 1;
    this.#aloneSince = now;
  }

  /**
   * The most units `caller` may be leased now: none while the counter is shared; 1% of `count`
   * until it has called alone for SOLE_CALLS calls and a whole interval (a few calls in a few ms
   * say nothing of who comes next: a lease of the usual size left then is what a second isolate
   * meets unused, issue 33); the usual sizes after that.
   */
  leaseCap(caller: string, limit: Limit, now: number): number {
    if (caller !== this.#last || now - this.#sharedAt < limit.intervalMs) return 0;
    const alone = this.#streak >= SOLE_CALLS && now - this.#aloneSince >= limit.intervalMs;
    return alone ? Number.POSITIVE_INFINITY : Math.floor(limit.count / 100);
  }
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
 * The lease the object can grant now, given the window after the call's own hits were decided
 * (`window`, with every unit already leased to anyone), or undefined when it should not lease.
 */
export function planLease(limit: Limit, window: SlidingWindow, now: number, want: number): { until: number; grant: Omit<LeaseGrant, "id"> } | undefined {
  const { count, intervalMs } = limit;
  if (count < LEASE_MIN_COUNT || !(want >= 1)) return undefined;
  const times = window.admissions(now);
  // Leave most of the room to other isolates: a lease takes at most a quarter of it.
  const units = Math.min(Math.floor(want), Math.floor(count / 16), Math.floor((count - times.length) / 4));
  if (units < 1) return undefined;
  let spanMs = Math.min(Math.floor(intervalMs / 4), MAX_LEASE_MS);
  // End the lease before more than MAX_EXPIRING entries leave the window, so the grant stays small.
  if (times.length > MAX_EXPIRING) spanMs = Math.min(spanMs, times[MAX_EXPIRING]! + intervalMs - now - 1);
  if (spanMs < MIN_LEASE_MS) return undefined;
  const until = now + spanMs;
  let leaving = 0;
  while (leaving < times.length && times[leaving]! + intervalMs <= until) leaving++;
  const grant = {
    units,
    spanMs,
    base: times.length - leaving,
    ...(times.length > leaving && { oldestBaseMs: times[leaving]! - now }),
    expiringMs: times.slice(0, leaving).map((t) => t - now),
  };
  return { until, grant };
}

/** True when `returned` can be the lease `held` (same size and span) and its uses fit it. */
export function fitsLease(returned: LeaseReturn, held: { units: number; spanMs: number }): boolean {
  const { units, spanMs, usedAtMs } = returned;
  return (
    units === held.units &&
    spanMs === held.spanMs &&
    Array.isArray(usedAtMs) &&
    usedAtMs.length <= units &&
    usedAtMs.every((t) => Number.isFinite(t) && t >= 0 && t <= spanMs)
  );
}

/** A lease ended and not yet given back: what goes back, what to ask next, and until when the object counts it. */
interface Ended {
  readonly returned: LeaseReturn;
  readonly next: number;
  readonly countsUntil: number;
}

/** Oldest entries a full LeaseBook looks at for one it may drop, per call. */
const PURGE_LOOK = 64;

/** Drops those of the PURGE_LOOK oldest entries of `map` that are `done`. */
function dropOldest<V>(map: Map<string, V>, done: (value: V) => boolean): void {
  let looked = 0;
  for (const [name, value] of map) {
    if (++looked > PURGE_LOOK) return;
    if (done(value)) map.delete(name);
  }
}

interface Held {
  readonly grant: LeaseGrant;
  readonly limit: Limit;
  /** This isolate's clock when the call that brought the lease was sent. */
  readonly from: number;
  readonly usedAtMs: number[];
  /** Entries of `grant.expiringMs` already out of the window. */
  gone: number;
}

/**
 * One isolate's leases, by counter name: decides requests locally while a lease lasts, and hands
 * each ended lease back with the next call to that counter. Bounded, but never by dropping a lease
 * the object may still count: a lease never given back keeps its units in the object's window
 * until an interval after its end, where a client on this isolate meets them as admissions it did
 * not make (issue 33). So only leases past that point are dropped for room, and while the book is
 * full of live ones it asks for no new lease (`request` wants none): a call per request, never an
 * early refusal.
 */
export class LeaseBook {
  readonly #held = new Map<string, Held>();
  readonly #ended = new Map<string, Ended>();
  readonly #wants = new Map<string, number>();
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
   * none (or it is used up, over, or for another limit: it is then ended, to be given back).
   */
  admit(name: string, limit: Limit, now: number): Verdict | undefined {
    const held = this.#held.get(name);
    if (!held) return undefined;
    const { grant } = held;
    const at = Math.max(0, now - held.from);
    if (at > grant.spanMs || held.usedAtMs.length >= grant.units || held.limit.count !== limit.count || held.limit.intervalMs !== limit.intervalMs) {
      this.#end(name, held, "over");
      return undefined;
    }
    const { intervalMs } = limit;
    const expiring = grant.expiringMs;
    while (held.gone < expiring.length && expiring[held.gone]! <= at - intervalMs) held.gone++;
    held.usedAtMs.push(at);
    const inWindow = grant.base + (expiring.length - held.gone) + held.usedAtMs.length;
    const remaining = Math.max(0, limit.count - inWindow);
    // The oldest admission in the window, as the object's exact window would say.
    const oldest = held.gone < expiring.length ? expiring[held.gone]! : grant.base > 0 ? grant.oldestBaseMs! : held.usedAtMs[0]!;
    const resetInMs = oldest + intervalMs - at;
    return { allowed: true, limit: limit.count, remaining, resetInMs, retryInMs: remaining > 0 ? 0 : Math.min(resetInMs, intervalMs) };
  }

  /**
   * What the next call for `name`, sent at `now`, asks: units, and the lease to give back. A lease still held is
   * ended and given back too (requests queued before it came go to the object in one call): its
   * unused units must not count against them, or the object would deny what a single window admits.
   * The lease given back stays here until a call carrying it is answered (`accept`): a call lost
   * with a cancelled request leaves it to go with the next one (the object takes a lease back once).
   */
  request(name: string, now: number): LeaseRequest {
    const held = this.#held.get(name);
    if (held) this.#end(name, held, "call");
    const ended = this.#ended.get(name);
    const want = this.#hasRoom(now) ? (ended?.next ?? this.#wants.get(name) ?? FIRST_WANT) : 0;
    return ended ? { caller: this.caller, want, returned: ended.returned } : { caller: this.caller, want };
  }

  /** The object answered the call sent at `from` (this isolate's clock), with a lease or none. */
  accept(name: string, limit: Limit, grant: LeaseGrant | undefined, from: number, request: LeaseRequest): void {
    if (request.returned && this.#ended.get(name)?.returned.id === request.returned.id) this.#ended.delete(name);
    if (request.want > 0) setBounded(this.#wants, name, request.want, this.#max);
    if (!grant) return;
    const previous = this.#held.get(name);
    if (previous) this.#end(name, previous, "call");
    // Never dropped for room (the class comment): at most the calls in flight past the bound.
    this.#held.set(name, { grant, limit, from, usedAtMs: [], gone: 0 });
  }

  /** Leases held now, for tests. */
  get size(): number {
    return this.#held.size;
  }

  /** Ends a lease, to be given back with the next call: it is "over" (used up, ran out, other limit) or a "call" is made anyway. */
  #end(name: string, held: Held, why: "over" | "call"): void {
    this.#held.delete(name);
    const { id, units, spanMs } = held.grant;
    const used = held.usedAtMs.length;
    // Slow start, as the reservation ledger: used up means demand is higher, ask twice as many;
    // a lease that ran out part-used asks what it used; one cut short by a call, the same again.
    const next = used >= units ? Math.min(MAX_WANT, units * 2) : why === "call" ? units : Math.max(MIN_WANT, used);
    const earlier = this.#ended.get(name);
    // One lease goes back per call; an earlier one not yet given back stays counted (safe).
    if (!earlier) this.#ended.set(name, { returned: { id, units, spanMs, usedAtMs: held.usedAtMs }, next, countsUntil: held.from + spanMs + held.limit.intervalMs });
    setBounded(this.#wants, name, next, this.#max);
  }

  /**
   * True when a new lease fits in the book: below its bound, after dropping the oldest leases
   * whose units the object no longer counts (an interval after their end: given back or not, they
   * change nothing any more). Looks at a few of the oldest only, so a book full of live leases
   * costs little per request.
   */
  #hasRoom(now: number): boolean {
    if (this.#held.size + this.#ended.size < this.#max) return true;
    dropOldest(this.#held, (held) => held.from + held.grant.spanMs + held.limit.intervalMs <= now);
    dropOldest(this.#ended, (ended) => ended.countsUntil <= now);
    return this.#held.size + this.#ended.size < this.#max;
  }
}
