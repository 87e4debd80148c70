import { Coalescer, DenyCache, LeaseBook, LocalFallback, verdictOf, type Algorithm, type CounterAddress, type DecidedBy, type FallbackReport, type LeaseRequest, type Limit, type Verdict } from "../core/limiter/index.ts";
import type { Env } from "../env.ts";
import type { Region } from "../core/rules/schema.ts";
import type { Clock } from "./clock.ts";

/**
 * The counter's answer for one request, and who gave it: the counter object, this isolate's lease
 * or deny cache, or this isolate's local fallback window (the object failed, was overloaded or too
 * slow; `failure` says how). The one decision type from the counter to the headers.
 */
export interface Counted extends Verdict {
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
}

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
  /** The call it went out in, once sent: should that fail, the local fallback's report names it. */
  call?: string;
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
  readonly #coalescer: Coalescer<Queued, Counted>;
  /** `#leased`, bound once: the coalescer asks it for queued requests. */
  readonly #leasedFn = (queued: Queued) => this.#leased(queued);
  #failures = 0;
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
    this.#coalescer = new Coalescer<Queued, Counted>({ now: () => clock.now(), maxCallsInFlight: MAX_CALLS_PER_OBJECT });
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
  async count(env: Env, request: CountRequest): Promise<Counted> {
    const { jurisdiction, address, limit, timeoutMs, cacheDenials, algorithm } = request;
    const { name } = address;
    const now = this.#clock.now();
    const until = this.#denied.retryAt(name, now);
    if (until !== undefined) {
      const wait = until - now;
      return { decidedBy: "deny-cache", allowed: false, limit: limit.count, remaining: 0, resetInMs: wait, retryInMs: wait };
    }
    const item: Queued = { counter: name, key: address.key, limit, algorithm, cacheDenials };
    const local = this.#leased(item);
    if (local) return local;
    try {
      // Requests for every counter the object holds share its calls; those queued behind the call
      // that brought a lease are decided on it.
      return await this.#coalescer.join(
        `${jurisdiction ?? ""}/${address.object}`,
        item,
        timeoutMs,
        (queued) => {
          const namespace = jurisdiction ? env.COUNTERS.jurisdiction(jurisdiction) : env.COUNTERS;
          return this.#call(namespace.getByName(address.object), queued, timeoutMs);
        },
        this.#leasedFn,
      );
    } catch (error) {
      this.#failures++;
      const message = error instanceof Error ? error.message : String(error);
      if (request.failMode === "closed") throw new CounterUnavailable(message);
      const decided = this.#clock.now();
      return { ...verdictOf(this.#fallback.decide(name, limit, decided, item.call), decided), decidedBy: "local-fallback", failure: message };
    }
  }

  /** The request decided on this isolate's lease on its counter, if it holds one that can. */
  #leased({ counter, limit, algorithm }: Queued): Counted | undefined {
    if (algorithm !== "sliding-window") return undefined;
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
  async #call(stub: ReturnType<Env["COUNTERS"]["getByName"]>, queued: readonly Queued[], timeoutMs: number): Promise<Counted[]> {
    const sentAt = this.#clock.now();
    const call = `${this.#caller}-${++this.#calls}`;
    // One part per counter, in order of first arrival; its verdicts go to its requests in order.
    const parts = new Map<string, Part>();
    for (const item of queued) {
      item.call = call;
      const { counter, key, limit, algorithm, cacheDenials } = item;
      const part = parts.get(counter);
      if (part) {
        part.batch.hits++;
        part.cacheDenials &&= cacheDenials;
        continue;
      }
      const recorded = this.#fallback.reports(counter, limit, sentAt);
      const lease = algorithm === "sliding-window" ? this.#leases.request(counter, sentAt) : undefined;
      parts.set(counter, { batch: { key, limit, algorithm, hits: 1, call, ...(recorded.length > 0 && { recorded }), ...(lease && { lease }) }, cacheDenials, verdicts: [], next: 0 });
    }
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`counter did not answer within ${timeoutMs} ms`)), timeoutMs);
      });
      const answers = await Promise.race([stub.decide([...parts.values()].map((part) => part.batch)), timeout]);
      if (answers.length !== parts.size) throw new Error(`counter answered ${answers.length} batches for ${parts.size}`);
      const answeredAt = this.#clock.now();
      [...parts].forEach(([counter, part], i) => {
        const { verdicts, lease: grant } = answers[i]!;
        const { batch } = part;
        part.verdicts = verdicts;
        if (batch.recorded) this.#fallback.delivered(counter, batch.recorded);
        if (batch.lease) this.#leases.accept(counter, batch.limit, grant, sentAt, batch.lease);
        const last = verdicts.at(-1);
        if (!last) return;
        const leased = grant && { units: grant.units, until: answeredAt + grant.spanMs };
        this.#fallback.observe(counter, { used: last.limit - last.remaining + (grant?.units ?? 0), at: answeredAt, ...(leased && { leased }) });
        // Answered from the cache until the object's answer could change, measured from the send
        // (never past it); telling a retry time measured from the answer (never before it).
        if (!last.allowed && part.cacheDenials) this.#denied.remember(counter, answeredAt + last.retryInMs, sentAt + (last.cacheForMs ?? last.retryInMs));
      });
      return queued.map(({ counter }) => {
        const part = parts.get(counter)!;
        const verdict = part.verdicts[part.next++];
        if (!verdict) throw new Error(`counter answered too few verdicts for ${counter}`);
        return { ...verdict, decidedBy: "object" };
      });
    } finally {
      if (timer !== undefined) clearTimeout(timer);
    }
  }
}

/** One counter's share of a call: its batch, whether its denials may be cached, and the verdicts handed out so far. */
interface Part {
  readonly batch: { readonly key: string; readonly limit: Limit; readonly algorithm: Algorithm; hits: number; readonly call: string; readonly recorded?: readonly FallbackReport[]; readonly lease?: LeaseRequest };
  cacheDenials: boolean;
  verdicts: readonly Verdict[];
  next: number;
}
