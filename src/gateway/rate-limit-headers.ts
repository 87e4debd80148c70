import type { Verdict } from "../core/limiter/index.ts";
import type { Rule } from "../core/rules/load.ts";
import type { PublishedLimit } from "../core/rules/schema.ts";

/** Whole seconds, rounded up: a client that waits this long is never early (docs/rules.md, "Headers and the 429 response"). */
export const ceilSeconds = (ms: number): number => Math.max(0, Math.ceil(ms / 1000));

/** `RateLimit-Policy: "<rule name>";q=<count>;w=<interval>` (draft-ietf-httpapi-ratelimit-headers-11). */
export function policyHeader(rule: Rule, limit: PublishedLimit): string {
  return `"${rule.name}";q=${limit.count};w=${limit.interval}`;
}

/**
 * `RateLimit: "<rule name>";r=<remaining>;t=<seconds until the window frees a unit>`. With a
 * sliding window a unit frees when the oldest admission in the window expires; t=0 on an empty
 * window.
 */
export function rateLimitHeader(rule: Rule, verdict: Verdict): string {
  return `"${rule.name}";r=${verdict.remaining};t=${ceilSeconds(verdict.resetInMs)}`;
}
