import { DenyCache, LocalFallback, verdictOf, type Algorithm, type Limit, type Verdict } from "../limiter/index.ts";
import type { Env } from "../env.ts";
import type { Region } from "../rules/schema.ts";

/**
 * Where a verdict came from: the counter object, this isolate's deny cache, this isolate's local
 * fallback window (the object failed, was overloaded or too slow), or nowhere (the object failed
 * and the gateway fails closed).
 */
export type CountResult =
  | { readonly source: "object" | "deny-cache"; readonly verdict: Verdict }
  | { readonly source: "fallback"; readonly verdict: Verdict; readonly error: string }
  | { readonly source: "failed"; readonly error: string };

export interface CountRequest {
  /** Durable Object jurisdiction of the counter; undefined only where it cannot be emulated. */
  readonly jurisdiction: Region | undefined;
  /** `<region>:<rule id>:<identity digest>` */
  readonly name: string;
  readonly limit: Limit;
  readonly timeoutMs: number;
  /** False for shadow rules: they must keep reaching the object to be counted. */
  readonly cacheDenials: boolean;
  readonly algorithm: Algorithm;
  /** "closed": a failed counter is a failure (503); "open": this isolate's local window decides. */
  readonly failMode: "open" | "closed";
}

const denied = new DenyCache();
const fallback = new LocalFallback();
let failures = 0;

/** Counter calls that failed in this isolate (also logged one by one). */
export function counterFailures(): number {
  return failures;
}

/**
 * Counts one request on the counter object named `name` (region, rule, hashed identity) in the
 * region's jurisdiction, so identity data stays in its region. A known-exhausted counter is
 * answered from the deny cache with no call. When the call fails or outlives `timeoutMs` (an
 * overloaded object answers "overloaded"), the request is decided by this isolate's local window
 * for the counter (LocalFallback: at most `count` per window from this isolate, each admission
 * reported to the object with the next call that succeeds), or refused when the gateway fails
 * closed. Traffic is never admitted uncounted.
 */
export async function count(env: Env, request: CountRequest): Promise<CountResult> {
  const { jurisdiction, name, limit, timeoutMs, cacheDenials, algorithm } = request;
  const now = Date.now();
  const until = denied.retryAt(name, now);
  if (until !== undefined) {
    const wait = until - now;
    return { source: "deny-cache", verdict: { allowed: false, limit: limit.count, remaining: 0, resetInMs: wait, retryInMs: wait } };
  }
  const recorded = fallback.takeUnreported(name);
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const namespace = jurisdiction ? env.LIMITER.jurisdiction(jurisdiction) : env.LIMITER;
    const stub = namespace.getByName(name);
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`counter did not answer within ${timeoutMs} ms`)), timeoutMs);
    });
    const [verdict] = await Promise.race([stub.hitBatch({ limit, algorithm, hits: 1, recorded }), timeout]);
    const answered = Date.now();
    fallback.observe(name, verdict!, answered);
    // Retry time measured from our own clock after the answer arrived: never earlier than the
    // counter's own retry time.
    if (!verdict!.allowed && cacheDenials) denied.remember(name, answered + verdict!.retryInMs);
    return { source: "object", verdict: verdict! };
  } catch (error) {
    failures++;
    // Not delivered: they go with the next call.
    fallback.restoreUnreported(name, recorded);
    const message = error instanceof Error ? error.message : String(error);
    if (request.failMode === "closed") return { source: "failed", error: message };
    const decided = Date.now();
    return { source: "fallback", verdict: verdictOf(fallback.decide(name, limit, decided), decided), error: message };
  } finally {
    if (timer !== undefined) clearTimeout(timer);
  }
}
