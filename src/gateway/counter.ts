import type { Verdict } from "../durable-objects/rate-limiter.ts";
import { DenyCache } from "../limiter/deny-cache.ts";
import type { Algorithm, Limit } from "../limiter/index.ts";
import type { Env } from "../env.ts";
import type { Region } from "../rules/schema.ts";

/** Where a verdict came from: the counter object, this isolate's deny cache, or a failure. */
export type CountResult =
  | { readonly source: "object" | "deny-cache"; readonly verdict: Verdict }
  | { readonly source: "failed"; readonly error: string };

const denied = new DenyCache();
let failures = 0;

/** Counter failures seen by this isolate (also logged one by one). */
export function counterFailures(): number {
  return failures;
}

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
}

/**
 * Counts one request on the counter object named `name` (region, rule, hashed identity) in the
 * region's jurisdiction, so identity data stays in its region. A known-exhausted counter is
 * answered from the deny cache with no call; a call that fails or outlives `timeoutMs` yields
 * `failed` and the caller applies the fail mode.
 */
export async function count(env: Env, { jurisdiction, name, limit, timeoutMs, cacheDenials, algorithm }: CountRequest): Promise<CountResult> {
  const now = Date.now();
  const until = denied.retryAt(name, now);
  if (until !== undefined) {
    const wait = until - now;
    return {
      source: "deny-cache",
      verdict: { allowed: false, limit: limit.count, remaining: 0, resetInMs: wait, retryInMs: wait },
    };
  }
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const namespace = jurisdiction ? env.LIMITER.jurisdiction(jurisdiction) : env.LIMITER;
    const stub = namespace.getByName(name);
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`counter did not answer within ${timeoutMs} ms`)), timeoutMs);
    });
    const verdict = await Promise.race([stub.hit(limit, algorithm), timeout]);
    // Retry time measured from our own clock after the answer arrived: never earlier than the
    // counter's own retry time.
    if (!verdict.allowed && cacheDenials) denied.remember(name, Date.now() + verdict.retryInMs);
    return { source: "object", verdict };
  } catch (error) {
    failures++;
    return { source: "failed", error: error instanceof Error ? error.message : String(error) };
  } finally {
    if (timer !== undefined) clearTimeout(timer);
  }
}
