import { Coalescer, DenyCache, LeaseBook, LocalFallback, verdictOf, type Algorithm, type CounterAddress, type LeaseRequest, type Limit, type Verdict } from "../limiter/index.ts";
import type { Env } from "../env.ts";
import type { Region } from "../rules/schema.ts";

/**
 * The counter's answer for one request, and who gave it: the counter object, this isolate's deny
 * cache, or this isolate's local fallback window (the object failed, was overloaded or too slow;
 * `failure` says how). The one decision type from the counter to the headers.
 */
export interface Counted extends Verdict {
  readonly decidedBy: "object" | "lease" | "deny-cache" | "local-fallback";
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

/** The clock counting is done by; tests replace `now` to move time. */
export const counterClock = { now: (): number => Date.now() };

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const denied = new DenyCache();
const fallback = new LocalFallback();
const leases = new LeaseBook();
/**
 * Calls one counter object may have in flight from this isolate, each for other identities (a
 * counter never has two). One would make an identity wait for another's call, storage commit
 * included, whenever they share an object; a few keep them apart while bounding what one isolate
 * asks of an object (its soft limit is about 1,000 requests per second): past this, every request
 * for the object shares the next call.
 */
export const MAX_CALLS_PER_OBJECT = 4;
const coalescer = new Coalescer<Queued, Counted>({ sleep, now: () => counterClock.now(), maxCallsInFlight: MAX_CALLS_PER_OBJECT });

/** One request waiting for its counter object: which counter of it, and how it is counted. */
interface Queued {
  readonly counter: string;
  readonly key: string;
  readonly limit: Limit;
  readonly algorithm: Algorithm;
}
let failures = 0;

/** Counter calls that failed in this isolate (also logged one by one). */
export function counterFailures(): number {
  return failures;
}

/**
 * Counts one request on its counter object (region, rule, hashed identity) in the region's
 * jurisdiction, so identity data stays in its region. A known-exhausted counter is answered from
 * the deny cache with no call, and a warm one from this isolate's lease on it while that lasts
 * (src/limiter/lease.ts: exact, the object counts leased units). Concurrent requests for one
 * counter share one call, and those for one object at most MAX_CALLS_PER_OBJECT (Coalescer), so a
 * burst on one key reaches its object as a few batches, not as more calls than it can take.
 * When the call fails or outlives `timeoutMs` (an overloaded object answers "overloaded"), the
 * request is decided by this isolate's local window for the counter (LocalFallback: at most
 * `count` per window from this isolate, each admission reported to the object with the next call
 * that succeeds), or refused when the gateway fails closed. Traffic is never admitted uncounted.
 *
 * @throws CounterUnavailable when the call failed and the gateway fails closed.
 */
export async function count(env: Env, request: CountRequest): Promise<Counted> {
  const { jurisdiction, address, limit, timeoutMs, cacheDenials, algorithm } = request;
  const { name } = address;
  const now = counterClock.now();
  const until = denied.retryAt(name, now);
  if (until !== undefined) {
    const wait = until - now;
    return { decidedBy: "deny-cache", allowed: false, limit: limit.count, remaining: 0, resetInMs: wait, retryInMs: wait };
  }
  const item: Queued = { counter: name, key: address.key, limit, algorithm };
  const local = leased(item);
  if (local) return local;
  try {
    // Requests for every counter the object holds share its calls; those queued behind the call
    // that brought a lease are decided on it.
    const verdict = await coalescer.join(
      `${jurisdiction ?? ""}/${address.object}`,
      item,
      timeoutMs,
      (queued) => {
        const namespace = jurisdiction ? env.LIMITER.jurisdiction(jurisdiction) : env.LIMITER;
        return callObject(namespace.getByName(address.object), queued, timeoutMs);
      },
      leased,
    );
    if (verdict.decidedBy === "lease") return verdict;
    const answered = counterClock.now();
    fallback.observe(name, verdict, answered);
    // Retry time measured from our own clock after the answer arrived: never earlier than the
    // counter's own retry time.
    if (!verdict.allowed && cacheDenials) denied.remember(name, answered + verdict.retryInMs);
    return verdict;
  } catch (error) {
    failures++;
    const message = error instanceof Error ? error.message : String(error);
    if (request.failMode === "closed") throw new CounterUnavailable(message);
    const decided = counterClock.now();
    return { ...verdictOf(fallback.decide(name, limit, decided), decided), decidedBy: "local-fallback", failure: message };
  }
}

/** The request decided on this isolate's lease on its counter, if it holds one that can. */
function leased({ counter, limit, algorithm }: Queued): Counted | undefined {
  if (algorithm !== "sliding-window") return undefined;
  const verdict = leases.admit(counter, limit, counterClock.now());
  return verdict && { ...verdict, decidedBy: "lease" };
}

/** One counter's share of a call: its batch, the lease it gives back, and the verdicts handed out so far. */
interface Part {
  readonly batch: { readonly key: string; readonly limit: Limit; readonly algorithm: Algorithm; hits: number; readonly recorded: number[] };
  readonly lease: LeaseRequest | undefined;
  verdicts: readonly Verdict[];
  next: number;
}

/**
 * One call to the counter object for the requests queued for it: per counter, how many, with the
 * admissions this isolate made locally while it failed and the lease it gives back, asking for a
 * new lease. One timer bounds the whole call. What it could not deliver goes with the next call.
 * Each request gets its counter's verdicts in order.
 */
async function callObject(stub: ReturnType<Env["LIMITER"]["getByName"]>, queued: readonly Queued[], timeoutMs: number): Promise<Counted[]> {
  // One part per counter, in order of first arrival; its verdicts go to its requests in order.
  const parts = new Map<string, Part>();
  for (const { counter, key, limit, algorithm } of queued) {
    const part = parts.get(counter);
    if (part) part.batch.hits++;
    else parts.set(counter, { batch: { key, limit, algorithm, hits: 1, recorded: fallback.takeUnreported(counter) }, lease: algorithm === "sliding-window" ? leases.request(counter) : undefined, verdicts: [], next: 0 });
  }
  const sentAt = counterClock.now();
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`counter did not answer within ${timeoutMs} ms`)), timeoutMs);
    });
    const answers = await Promise.race([stub.decideMany([...parts.values()].map(({ batch, lease }) => (lease ? { ...batch, lease } : batch))), timeout]);
    if (answers.length !== parts.size) throw new Error(`counter answered ${answers.length} batches for ${parts.size}`);
    [...parts].forEach(([counter, part], i) => {
      if (part.lease) leases.accept(counter, part.batch.limit, answers[i]!.lease, sentAt, part.lease);
      part.verdicts = answers[i]!.verdicts;
    });
    return queued.map(({ counter }) => {
      const part = parts.get(counter)!;
      const verdict = part.verdicts[part.next++];
      if (!verdict) throw new Error(`counter answered too few verdicts for ${counter}`);
      return { ...verdict, decidedBy: "object" };
    });
  } catch (error) {
    for (const [counter, { batch, lease }] of parts) {
      fallback.restoreUnreported(counter, batch.recorded);
      if (lease) leases.restore(counter, lease);
    }
    throw error;
  } finally {
    if (timer !== undefined) clearTimeout(timer);
  }
}
