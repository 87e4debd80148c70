/**
 * The throttle on failed admin authentication (docs/admin.md, "Throttling"): per client address,
 * counted in the region's counter objects (the COUNTERS namespace), so every isolate sees every
 * failure; isolate memory would give a guesser a fresh allowance on each of the edge's isolates.
 * This module is the policy (the allowance, where a client is counted); the counting, with its
 * timeout and its local windows while the objects fail, is the isolate's (src/gateway/admin-throttle.ts,
 * reached through the runtime).
 */
import type { Limit } from "../core/limiter/index.ts";
import { identityDigest } from "../core/rules/identity.ts";
import type { RegionRuntime, Standing, ThrottleAddress } from "../gateway/runtime.ts";

/**
 * Failures one client may make in any 60 s before every admin request it sends is refused 429,
 * a valid token's included. 5: a person mistyping needs one or two tries and a scraper with a
 * stale token fails 4 times a minute at a 15 s interval, while a guesser gets 7,200 tries a day
 * per address (an IPv6 client: per /64) against tokens of at least 16 characters.
 */
export const AUTH_FAILURES: Limit = { count: 5, intervalMs: 60_000 };

/** Objects the region's throttle counters are spread over, so one busy object is not every client's. */
export const THROTTLE_OBJECTS = 16;

/** The throttle counter of the client whose address key (clientIpKey) is `clientIp`. */
export function throttleAddress(settings: { readonly region: string; readonly hmacSecret: string }, clientIp: string): ThrottleAddress {
  const digest = identityDigest({ kind: "ip", ip: clientIp }, settings.hmacSecret);
  // Rule ids are numbers, so this name never meets a rule's counter objects.
  return { object: `${settings.region}:admin-auth:${Number.parseInt(digest.slice(0, 8), 16) % THROTTLE_OBJECTS}`, key: digest };
}

/**
 * Records one failed authentication of the client and says whether it was still within its
 * allowance: the count and the decision are one call to the object, so clients racing through
 * many isolates cannot all slip in under the limit. While the object does not answer (within
 * COUNTER_TIMEOUT_MS), this isolate counts on its own.
 */
export function recordFailure(runtime: RegionRuntime, address: ThrottleAddress): Promise<Standing> {
  return runtime.recordAuthFailure(address, AUTH_FAILURES);
}

/**
 * Whether the client has used up its allowance, without counting anything (a valid token is no
 * failure); this isolate's own count while the object does not answer.
 */
export function standing(runtime: RegionRuntime, address: ThrottleAddress): Promise<Standing> {
  return runtime.authStanding(address, AUTH_FAILURES);
}
