/**
 * The throttle on failed admin authentication (docs/admin.md, "Throttling"): per client address,
 * counted in the region's counter objects (the COUNTERS namespace), so every isolate sees every
 * failure; isolate memory would give a guesser a fresh allowance on each of the edge's isolates.
 */
import type { Env } from "../env.ts";
import type { GatewaySettings } from "../gateway/settings.ts";
import type { Isolate } from "../gateway/isolate.ts";
import { SlidingWindow, type Limit } from "../core/limiter/index.ts";
import { setBounded } from "../core/limiter/bounded-map.ts";
import { identityDigest } from "../core/rules/identity.ts";

/**
 * Failures one client may make in any 60 s before every admin request it sends is refused 429,
 * a valid token's included. 5: a person mistyping needs one or two tries and a scraper with a
 * stale token fails 4 times a minute at a 15 s interval, while a guesser gets 7,200 tries a day
 * per address (an IPv6 client: per /64) against tokens of at least 16 characters.
 */
export const AUTH_FAILURES: Limit = { count: 5, intervalMs: 60_000 };

/** Objects the region's throttle counters are spread over, so one busy object is not every client's. */
export const THROTTLE_OBJECTS = 16;

/** Where a client's failures are counted: never a raw address, only its digest (as the rules' counters). */
export interface ThrottleAddress {
  readonly object: string;
  readonly key: string;
}

/** The throttle counter of the client whose address key (clientIpKey) is `clientIp`. */
export function throttleAddress(settings: Pick<GatewaySettings, "region" | "hmacSecret">, clientIp: string): ThrottleAddress {
  const digest = identityDigest({ kind: "ip", ip: clientIp }, settings.hmacSecret);
  // Rule ids are numbers, so this name never meets a rule's counter objects.
  return { object: `${settings.region}:admin-auth:${Number.parseInt(digest.slice(0, 8), 16) % THROTTLE_OBJECTS}`, key: digest };
}

/** A client's standing: how long until it may try again (0: it may now). */
export interface Standing {
  readonly retryInMs: number;
}

/**
 * Records one failed authentication of the client and says whether it was still within its
 * allowance: the count and the decision are one call to the object, so clients racing through
 * many isolates cannot all slip in under the limit. While the object does not answer (within
 * COUNTER_TIMEOUT_MS), this isolate counts on its own (`localWindows`).
 */
export async function recordFailure(env: Env, settings: GatewaySettings, isolate: Isolate, address: ThrottleAddress): Promise<Standing> {
  try {
    const [answer] = await withTimeout(stub(env, settings, address).decide([{ key: address.key, limit: AUTH_FAILURES, hits: 1 }]), settings.counterTimeoutMs);
    recovered(isolate, settings);
    const verdict = answer!.verdicts[0]!;
    return { retryInMs: verdict.allowed ? 0 : Math.max(1, verdict.retryInMs) };
  } catch (error) {
    const now = isolate.clock.now();
    const decision = localWindow(isolate, settings, address, error).hit(now);
    return { retryInMs: decision.allowed ? 0 : Math.max(1, decision.retryAt - now) };
  }
}

/**
 * Whether the client has used up its allowance, without counting anything (a valid token is no
 * failure); this isolate's own count while the object does not answer.
 */
export async function standing(env: Env, settings: GatewaySettings, isolate: Isolate, address: ThrottleAddress): Promise<Standing> {
  try {
    const inspection = await withTimeout(stub(env, settings, address).inspect({ key: address.key, limit: AUTH_FAILURES }), settings.counterTimeoutMs);
    recovered(isolate, settings);
    return { retryInMs: inspection.remaining > 0 ? 0 : Math.max(1, inspection.retryInMs) };
  } catch (error) {
    const now = isolate.clock.now();
    const decision = localWindow(isolate, settings, address, error).peek(now);
    return { retryInMs: decision.allowed ? 0 : Math.max(1, decision.retryAt - now) };
  }
}

/** Clients an isolate counts on its own at most (the least recently seen go first). */
const LOCAL_CLIENTS = 10_000;

/**
 * Each isolate's failure windows for while the throttle's objects fail. Failing open would let a
 * guesser who floods its object past its capacity try tokens unthrottled; failing closed would
 * lock every operator out whenever the counter objects fail, when the admin API is needed most.
 * Counting locally keeps both: a client gets AUTH_FAILURES.count per window in each isolate it
 * reaches (K isolates: K times as many), and a valid token still works. Nothing is reported to the
 * object afterwards: the bound holds for the outage, and the object's own count resumes after it.
 */
const localWindows = new WeakMap<Isolate, { windows: Map<string, SlidingWindow>; failing: boolean }>();

function localWindow(isolate: Isolate, settings: GatewaySettings, address: ThrottleAddress, error: unknown): SlidingWindow {
  let local = localWindows.get(isolate);
  if (!local) localWindows.set(isolate, (local = { windows: new Map(), failing: false }));
  if (!local.failing) {
    // Once per outage and isolate: a flood of guesses must not become a flood of log lines.
    console.log(JSON.stringify({ event: "admin_auth_throttle_unavailable", region: settings.region, error: String(error), decidedBy: "local-fallback" }));
    local.failing = true;
  }
  const window = local.windows.get(address.key) ?? new SlidingWindow(AUTH_FAILURES);
  setBounded(local.windows, address.key, window, LOCAL_CLIENTS);
  return window;
}

function recovered(isolate: Isolate, settings: GatewaySettings): void {
  const local = localWindows.get(isolate);
  if (!local?.failing) return;
  local.failing = false;
  console.log(JSON.stringify({ event: "admin_auth_throttle_recovered", region: settings.region }));
}

function stub(env: Env, settings: GatewaySettings, address: ThrottleAddress) {
  // In the region's jurisdiction, like every counter: the digest names a client of the region.
  const namespace = settings.jurisdiction ? env.COUNTERS.jurisdiction(settings.jurisdiction) : env.COUNTERS;
  return namespace.getByName(address.object);
}

async function withTimeout<T>(call: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`the authentication throttle did not answer within ${ms} ms`)), ms);
    });
    return await Promise.race([call, timeout]);
  } finally {
    if (timer !== undefined) clearTimeout(timer);
  }
}
