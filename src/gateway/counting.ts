import {
  CallTimedOut,
  Coalescer,
  DenyCache,
  GIVE_BACK_GRACE_MS,
  GiveBackRoster,
  LeaseBook,
  LocalFallback,
  MAX_LEASE_MS,
  verdictOf,
  type Algorithm,
  type CounterAddress,
  type DecidedBy,
  type FallbackReport,
  type LeaseCall,
  type LeaseRequest,
  type Limit,
  type Verdict,
} from "../core/limiter/index.ts";
import type { Env } from "../env.ts";
import type { Region } from "../core/rules/schema.ts";
import { sleepOn, type Clock } from "./clock.ts";
import { withDeadline } from "./deadline.ts";
import { inJurisdiction } from "./objects.ts";

/**
 * A request's verdict and who gave it: the counter object, this isolate's lease or deny cache, or
 * this isolate's local fallback window (the object failed, was overloaded or too slow; `failure`
 * says how). What the request path reads, from the counter to the headers, the decision log and
 * the metrics.
 */
export interface AttributedVerdict extends Verdict {
  readonly decidedBy: DecidedBy;
  readonly failure?: string;
}

/** The counter object failed and the gateway fails closed: the request is refused (503). */
export class CounterUnavailable extends Error {
  override name = "CounterUnavailable";
}

export interface CountRequest {
  /** Durable Object jurisdiction of the counter; undefined only where it cannot be emulated. */
  readonly jurisdiction: Region | undefined;
  readonly address: CounterAddress;
  readonly limit: Limit;
  readonly timeoutMs: number;
  /** False for shadow rules: they must keep reaching the object to be counted. */
  readonly cacheDenials: boolean;
  readonly algorithm: Algorithm;
  /** "closed": a failed counter is a failure (503); "open": this isolate's local window decides. */
  readonly failMode: "open" | "closed";
  /**
   * Keeps work going after the response (the request's `waitUntil`): renewing a lease ahead of its
   * end and giving it back at its end. Without it (a bare `app.fetch`) this isolate asks for no lease.
   */
  readonly background?: (work: Promise<unknown>) => void;
}

/**
 * The longest a request waits for units lent to other isolates to come back (a lease's longest
 * span and the object's grace for it, twice over) before it is answered with the refusal.
 */
const MAX_WAIT_MS = MAX_LEASE_MS + 2 * GIVE_BACK_GRACE_MS;

/**
 * The shortest a request waits for lent units before asking again: a waiting request asks again
 * after a round trip to its object, or this when round trips are shorter, so that waiting on an
 * idle holder's unused lease costs at most one call per this span per isolate (concurrent waiters
 * of one isolate share a call).
 */
const MIN_REASK_MS = 20;

/** The longest a waiting request's backoff grows to before it asks again. */
const MAX_REASK_MS = 1_000;
/** Tries at giving a lease back at its end, spread over half the object's grace for it. */
const GIVE_BACK_ATTEMPTS = 3;

/**
 * Calls one counter object may have in flight from this isolate, each for other identities (a
 * counter never has two). One would make an identity wait for another's call, storage commit
 * included, whenever they share an object; a few keep them apart while bounding what one isolate
 * asks of an object (its soft limit is about 1,000 requests per second): past this, every request
 * for the object shares the next call.
 */
export const MAX_CALLS_PER_OBJECT = 4;

/** One request waiting for its counter object: which counter of it, and how it is counted. */
interface Queued {
  readonly counter: string;
  readonly key: string;
  readonly limit: Limit;
  readonly algorithm: Algorithm;
  readonly cacheDenials: boolean;
  /** A request to decide ("hits"), or a lease renewed or given back in the background. */
  readonly kind: LeaseCall;
  /** Where background work goes, and whether this isolate may hold a lease at all. */
  readonly background: ((work: Promise<unknown>) => void) | undefined;
  /** The call it went out in, once sent: should that fail, the local fallback's report names it. */
  call?: string;
  /** A request waiting for lent units: how soon it asks again at the latest (its backoff, count()). */
  readonly reaskMs?: number;
}

/**
 * One isolate's part of counting (src/gateway/isolate.ts holds one per gateway): its deny cache,
 * its leases, its local fallback windows, the calls it coalesces, and how many failed.
 */
export class Counting {
  readonly #clock: Clock;
  readonly #denied = new DenyCache();
  readonly #fallback: LocalFallback;
  readonly #leases: LeaseBook;
  readonly #coalescer: Coalescer<Queued, AttributedVerdict | undefined>;
  /** `#leased`, bound once: the coalescer asks it for queued requests. */
  readonly #leasedFn = (queued: Queued) => this.#leased(queued);
  #failures = 0;
  /** Counters with a renewal on its way, so a lease is renewed once. */
  readonly #renewing = new Set<string>();
  /** The counters holding leases, by object: a call to an object carries the give-backs due there. */
  readonly #roster = new GiveBackRoster<Queued>();
  /** Counters whose last call asked for a lease and has not been answered: a failed one may have brought one. */
  readonly #asking = new Set<string>();
  /** The last call's round trip (ms): a lease is renewed this long (thrice) before it ends. */
  #roundTripMs = 0;
  /** This isolate's id, the prefix of its call ids. */
  readonly #caller: string;
  #calls = 0;

  /** @param caller this isolate's id, as the counter objects know it */
  constructor(caller: string, clock: Clock) {
    this.#caller = caller;
    this.#clock = clock;
    this.#fallback = new LocalFallback({ caller });
    this.#leases = new LeaseBook({ caller });
    // Deadlines on this isolate's clock; the runtime's timers wake a request waiting for one.
    this.#coalescer = new Coalescer<Queued, AttributedVerdict | undefined>({
      now: () => clock.now(),
      maxCallsInFlight: MAX_CALLS_PER_OBJECT,
      riders: (object) => this.#givebacksDue(object),
    });
  }

  /** Counter calls that failed in this isolate (also logged one by one). */
  get failures(): number {
    return this.#failures;
  }

  /** Counters this isolate decides on its own now, their objects failing. */
  get fallbackCounters(): number {
    return this.#fallback.active;
  }

  /**
   * Counts one request on its counter object (region, rule, hashed identity) in the region's
   * jurisdiction, so identity data stays in its region. A known-exhausted counter is answered from
   * the deny cache with no call, and a warm one from this isolate's lease on it while that lasts
   * (src/core/limiter/lease.ts: exact, the object counts leased units). Concurrent requests for one
   * counter share one call, and those for one object at most MAX_CALLS_PER_OBJECT (Coalescer), so
   * a burst on one key reaches its object as a few batches, not as more calls than it can take.
   * When the call fails or outlives `timeoutMs` (an overloaded object answers "overloaded"), the
   * request is decided by this isolate's local window for the counter (LocalFallback: at most
   * `count` per window from this isolate, each admission reported to the object until a call
   * carrying it is answered), or refused when the gateway fails closed. Never admitted uncounted.
   *
   * @throws CounterUnavailable when the call failed and the gateway fails closed.
   */
  async count(env: Env, request: CountRequest): Promise<AttributedVerdict> {
    // A refusal only because units lent to other isolates fill the window need not be a 429: those
    // units come back by their lease's end, so the object keeps a place for as many requests as
    // they could admit (lease-desk.ts), and each asks again then. Every other request gets its
    // answer at once: a refusal the deny cache holds until the first of them is due back.
    // A waiting request asks again after a round trip, then twice as long each time (up to
    // MAX_REASK_MS): a lease used or given back meanwhile ends the wait within round trips, and one
    // left unused till its end costs a few calls, not one per round trip.
    let waited = 0;
    let reaskMs: number | undefined;
    for (;;) {
      const verdict = await this.#countOnce(env, request, reaskMs);
      const wait = verdict.waitMs;
      if (wait === undefined || waited + wait > MAX_WAIT_MS) return verdict;
      waited += wait;
      await sleepOn(this.#clock, wait, "request");
      reaskMs = Math.min(MAX_REASK_MS, 2 * (reaskMs ?? Math.max(MIN_REASK_MS, this.#roundTripMs)));
    }
  }

  async #countOnce(env: Env, request: CountRequest, reaskMs?: number): Promise<AttributedVerdict> {
    const { address, limit, cacheDenials, algorithm } = request;
    const { name } = address;
    const now = this.#clock.now();
    const until = this.#denied.retryAt(name, now);
    if (until !== undefined) {
      const wait = until - now;
      return { decidedBy: "deny-cache", allowed: false, limit: limit.count, remaining: 0, resetInMs: wait, retryInMs: wait };
    }
    const item: Queued = {
      counter: name,
      key: address.key,
      limit,
      algorithm,
      cacheDenials,
      kind: "hits",
      background: request.background,
      ...(reaskMs !== undefined && { reaskMs }),
    };
    const local = this.#leased(item);
    if (local) {
      this.#renewIfDue(env, request, now);
      return local;
    }
    try {
      const verdict = await this.#join(env, request, item);
      if (!verdict) throw new Error("counter answered no verdict");
      return verdict;
    } catch (error) {
      this.#failures++;
      const message = error instanceof Error ? error.message : String(error);
      // A call that asked for a lease and timed out may have been decided, and brought a lease
      // this isolate will never use: a call in the background names the newest lease it did hear
      // of, and the object takes back the rest (lease.ts, `heard`) instead of counting them until
      // they end. Without it a client's units would stay lent to every isolate that lost an
      // answer. A call that failed outright granted nothing, and an object failing so is not
      // called again for it.
      if (this.#asking.delete(name) && error instanceof CallTimedOut && request.background) request.background(this.#inBackground(env, request, "give-back"));
      if (request.failMode === "closed") throw new CounterUnavailable(message);
      const decided = this.#clock.now();
      return { ...verdictOf(this.#fallback.decide(name, limit, decided, item.call), decided), decidedBy: "local-fallback", failure: message };
    }
  }

  /**
   * The item's answer from a call to its counter object: requests for every counter the object
   * holds share its calls; those queued behind the call that brought a lease are decided on it.
   */
  #join(env: Env, request: CountRequest, item: Queued): Promise<AttributedVerdict | undefined> {
    const { jurisdiction, address, timeoutMs } = request;
    const object = objectOf(request);
    return this.#coalescer.join(
      object,
      item,
      timeoutMs,
      (queued) => this.#call(env, request, object, inJurisdiction(env.COUNTERS, jurisdiction).getByName(address.object), queued, timeoutMs),
      this.#leasedFn,
    );
  }

  /**
   * The give-backs of `object`'s counters due now (ended leases, or ending soon: lease.ts), to ride
   * on a call going there, so they need no call of their own.
   */
  #givebacksDue(object: string): Queued[] {
    const now = this.#clock.now();
    return this.#roster
      .due(
        object,
        now,
        (counter) => this.#leases.owes(counter, now),
        (counter) => this.#leases.holds(counter),
      )
      .map((item) => ({ ...item }));
  }

  /** Renews the lease that just answered, in the background, when it is about to run out (lease.ts). */
  #renewIfDue(env: Env, request: CountRequest, now: number): void {
    const { name } = request.address;
    if (!request.background || this.#renewing.has(name)) return;
    if (!this.#leases.renewalDue(name, now, Math.max(20, 3 * this.#roundTripMs))) return;
    this.#renewing.add(name);
    request.background(this.#inBackground(env, request, "renew").finally(() => this.#renewing.delete(name)));
  }

  /** Gives back what ended of `request`'s counter's leases once the newest ends (`endsAt`, this isolate's clock). */
  async #giveBackAt(env: Env, request: CountRequest, endsAt: number): Promise<void> {
    await sleepOn(this.#clock, Math.max(0, endsAt - this.#clock.now()) + 1, "background");
    // Within the object's grace for it (GIVE_BACK_GRACE_MS): a give-back that failed is tried again
    // soon, or its unused units would count for an interval as used.
    const { name } = request.address;
    for (let attempt = 1; this.#leases.owes(name, this.#clock.now()); attempt++) {
      if ((await this.#inBackground(env, request, "give-back")) || attempt === GIVE_BACK_ATTEMPTS) break;
      await sleepOn(this.#clock, GIVE_BACK_GRACE_MS / (2 * GIVE_BACK_ATTEMPTS), "background");
    }
    if (!this.#leases.holds(name)) this.#roster.drop(objectOf(request), name);
  }

  /**
   * A call with no request of its own: a lease renewed or given back. True once answered; a failed
   * one changes nothing (what it carried goes with the next call, and stays counted until then).
   */
  async #inBackground(env: Env, request: CountRequest, kind: Exclude<LeaseCall, "hits">): Promise<boolean> {
    const { address, limit, cacheDenials, algorithm } = request;
    try {
      await this.#join(env, request, { counter: address.name, key: address.key, limit, algorithm, cacheDenials, kind, background: request.background });
      return true;
    } catch {
      return false; // counted in full until given back: never an under-count
    }
  }

  /** The request decided on this isolate's lease on its counter, if it holds one that can. */
  #leased({ counter, limit, algorithm, kind }: Queued): AttributedVerdict | undefined {
    if (algorithm !== "sliding-window" || kind !== "hits") return undefined;
    const verdict = this.#leases.admit(counter, limit, this.#clock.now());
    return verdict && { ...verdict, decidedBy: "lease" };
  }

  /**
   * One call to the counter object for the requests queued for it: per counter, how many, with the
   * admissions this isolate made locally while it failed and the lease it gives back, asking for a
   * new lease. One timer bounds the whole call. What it could not deliver goes with the next call.
   * Once answered, each counter's last verdict is what the fallback starts from should the object
   * fail later, and a denial is remembered in the deny cache. Each request gets its counter's
   * verdicts in order.
   */
  async #call(
    env: Env,
    request: CountRequest,
    object: string,
    stub: ReturnType<Env["COUNTERS"]["getByName"]>,
    queued: readonly Queued[],
    timeoutMs: number,
  ): Promise<(AttributedVerdict | undefined)[]> {
    const sentAt = this.#clock.now();
    const call = `${this.#caller}-${++this.#calls}`;
    // One part per counter, in order of first arrival; its verdicts go to its requests in order.
    const byCounter = new Map<string, Queued[]>();
    for (const item of queued) {
      item.call = call;
      const items = byCounter.get(item.counter);
      if (items) items.push(item);
      else byCounter.set(item.counter, [item]);
    }
    const parts = new Map<string, Part>();
    for (const [counter, items] of byCounter) {
      const { key, limit, algorithm } = items[0]!;
      const hits = items.filter((item) => item.kind === "hits").length;
      // Every call gives back the lease in use; a renewal asks for the next, a give-back returns only
      // what ended (renewing it when it was used often, lease.ts).
      const kind: LeaseCall = hits > 0 ? "hits" : items.some((item) => item.kind === "renew") ? "renew" : "give-back";
      // A give-back riding on this call (no request of its own) keeps its work going on the sender's.
      const background = items.find((item) => item.background)?.background ?? request.background;
      const recorded = this.#fallback.reports(counter, limit, sentAt);
      const lease = algorithm === "sliding-window" ? this.#leases.request(counter, sentAt, kind) : undefined;
      // An isolate that cannot give a lease back at its end (no background work) asks for none. A
      // request told to wait for lent units is told to ask again by its backoff at the latest (the
      // soonest among this call's requests; a round trip for a first ask), so a lease taken back
      // meanwhile ends its wait then, not at the lease's end.
      const firstAsk = Math.max(MIN_REASK_MS, this.#roundTripMs);
      const reaskMs = Math.min(...items.map((item) => item.reaskMs ?? firstAsk));
      const asked = lease && { ...lease, ...(!background && lease.want > 0 && { want: 0 }), reaskMs };
      if (asked && asked.want > 0) this.#asking.add(counter);
      const cacheDenials = items.every((item) => item.cacheDenials);
      parts.set(counter, {
        batch: { key, limit, algorithm, hits, call, ...(recorded.length > 0 && { recorded }), ...(asked && { lease: asked }) },
        cacheDenials,
        background,
        verdicts: [],
        next: 0,
      });
    }
    const answers = await withDeadline(stub.decide([...parts.values()].map((part) => part.batch)), timeoutMs, () => new CallTimedOut(timeoutMs));
    if (answers.length !== parts.size) throw new Error(`counter answered ${answers.length} batches for ${parts.size}`);
    const answeredAt = this.#clock.now();
    this.#roundTripMs = answeredAt - sentAt;
    [...parts].forEach(([counter, part], i) => {
      const { verdicts, lease: grant } = answers[i]!;
      const { batch } = part;
      part.verdicts = verdicts;
      if (batch.recorded) this.#fallback.delivered(counter, batch.recorded);
      this.#asking.delete(counter);
      if (batch.lease) this.#leases.accept(counter, batch.limit, grant, sentAt, batch.lease);
      // Every lease goes back by its end, whether or not a request comes for it (lease.ts): with a
      // call to the object then, or riding on one that goes there first.
      if (grant && part.background) {
        const { key, limit, algorithm } = batch;
        const item: Queued = { counter, key, limit, algorithm, cacheDenials: part.cacheDenials, kind: "give-back", background: undefined };
        this.#roster.add(object, counter, item, this.#leases.owedFrom(counter, answeredAt) ?? answeredAt);
        part.background(this.#giveBackAt(env, { ...request, address: { ...request.address, name: counter, key }, limit }, sentAt + grant.spanMs));
      }
      const last = verdicts.at(-1);
      if (!last) return;
      const leased = grant && { units: grant.units, until: answeredAt + grant.spanMs };
      this.#fallback.observe(counter, { used: last.limit - last.remaining + (grant?.units ?? 0), at: answeredAt, ...(leased && { leased }) });
      // Answered from the cache until the object's answer could change, measured from the send
      // (never past it); telling a retry time measured from the answer (never before it). A
      // refusal that says to wait for lent units is asked again, never cached.
      if (!last.allowed && last.waitMs === undefined && part.cacheDenials)
        this.#denied.remember(counter, answeredAt + last.retryInMs, sentAt + (last.cacheForMs ?? last.retryInMs));
    });
    return queued.map(({ counter, kind }) => {
      if (kind !== "hits") return undefined;
      const part = parts.get(counter)!;
      const verdict = part.verdicts[part.next++];
      if (!verdict) throw new Error(`counter answered too few verdicts for ${counter}`);
      return { ...verdict, decidedBy: "object" };
    });
  }
}

/** The Coalescer's key for the counter object of `request`: the object, in its jurisdiction. */
function objectOf({ jurisdiction, address }: CountRequest): string {
  return `${jurisdiction ?? ""}/${address.object}`;
}

/** One counter's share of a call: its batch, whether its denials may be cached, and the verdicts handed out so far. */
interface Part {
  readonly batch: {
    readonly key: string;
    readonly limit: Limit;
    readonly algorithm: Algorithm;
    hits: number;
    readonly call: string;
    readonly recorded?: readonly FallbackReport[];
    readonly lease?: LeaseRequest;
  };
  cacheDenials: boolean;
  readonly background: ((work: Promise<unknown>) => void) | undefined;
  verdicts: readonly Verdict[];
  next: number;
}
