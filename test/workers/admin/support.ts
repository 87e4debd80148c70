// Shared by the admin API's Workers-runtime tests: a gateway with an admin token, a request
// helper (to the admin host), and clocks the tests drive (the overrides' clock, the configuration
// object's, a counter object's and the authentication throttle's), so nothing depends on how fast
// the machine is.
import { env } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import type { Env } from "../../../src/env.ts";
import type { CounterObject } from "../../../src/durable-objects/counter-object.ts";
import type { OverridesStore } from "../../../src/durable-objects/overrides-store.ts";
import { throttleAddress } from "../../../src/admin/throttle.ts";
import { COPY_CACHE, copyKey } from "../../../src/gateway/overrides.ts";
import { clientIpKey } from "../../../src/core/rules/client-ip.ts";
import { LOCAL_BINDINGS } from "../../../tools/local-bindings.ts";
import { counterAddress } from "../../../src/core/limiter/index.ts";
import { identityDigest } from "../../../src/core/rules/identity.ts";
import type { Identity } from "../../../src/core/rules/request-facts.ts";
import { keyed } from "../support/requests.ts";
import { gatewayWith } from "../support/custom-gateway.ts";

export const region = env.REGION as "us" | "eu";
export const TOKEN = "test-admin-token-0123456789abcdef";

/** The admin host of the tests' gateways (ADMIN_HOSTS, as npm start sets it). */
export const ADMIN_HOST = LOCAL_BINDINGS.ADMIN_HOSTS;

/** The URL of an admin API path (below /_tollgate) on the admin host. */
export const adminUrl = (path: string, host: string = ADMIN_HOST) => `https://${host}/_tollgate${path}`;

/**
 * Counter objects are shared by many identities (OBJECTS_PER_RULE), so a test that freezes one's
 * clock would freeze other tests' counters too; and the region's metrics object adds up the
 * traffic of every file that shares this runner (vitest.config.ts). The admin tests' gateways
 * therefore count, and hand their metrics, to objects of their own: the same names under a prefix
 * that changes with every test.
 */
let lab = `admin-test:${crypto.randomUUID()}:`;
const privateLimiter = {
  jurisdiction: () => privateLimiter,
  getByName: (name: string) => env.COUNTERS.getByName(lab + name),
} as unknown as Env["COUNTERS"];
const privateMetrics = {
  jurisdiction: () => privateMetrics,
  getByName: (name: string) => env.METRICS.getByName(lab + name),
} as unknown as Env["METRICS"];

/** The clock the next admin gateways run on (driveOverridesClock), the runtime's by default. */
let gatewayClock: { now(): number } | undefined;

/**
 * A gateway with the admin API on (ADMIN_TOKEN set), its own counter and metrics objects, and any
 * other bindings replaced, on the clock driveOverridesClock set (each gateway is an isolate of its own).
 */
export function adminGateway(overrides: Partial<Env> = {}) {
  return gatewayWith({ ADMIN_TOKEN: TOKEN, COUNTERS: privateLimiter, METRICS: privateMetrics, ...overrides }, undefined, gatewayClock);
}

export type Send = ReturnType<typeof gatewayWith>;

/**
 * An admin API call on the admin host (or `host`) with the token (or `token: null` for none), from
 * the client address `ip` when given (the edge's CF-Connecting-IP; none: the "unknown" client).
 */
export function admin(
  send: Send,
  method: string,
  path: string,
  options: { body?: unknown; token?: string | null; headers?: Record<string, string>; host?: string; ip?: string } = {},
) {
  const token = options.token === undefined ? TOKEN : options.token;
  const headers: Record<string, string> = { ...options.headers };
  if (token !== null) headers.authorization = `Bearer ${token}`;
  if (options.ip !== undefined) headers["cf-connecting-ip"] = options.ip;
  if (options.body !== undefined) headers["content-type"] = "application/json";
  return send(adminUrl(path, options.host), { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body) });
}

/**
 * Fixes the clock of the object counting `ip`'s failed authentications (src/admin/throttle.ts)
 * at the returned clock's `now`, which the test moves: no window slides on its own.
 */
export async function driveThrottleClock(ip: string, start: number) {
  const clock = { now: start };
  const address = throttleAddress({ region, hmacSecret: env.IDENTITY_HMAC_SECRET! }, clientIpKey(ip));
  await runInDurableObject(env.COUNTERS.getByName(lab + address.object), (instance: CounterObject) => {
    instance.now = () => clock.now;
  });
  return clock;
}

/** The clock of the gateways made after it (their overrides, counting and metrics), driven by the test. */
export function driveOverridesClock(start: number) {
  const clock = { now: start };
  gatewayClock = { now: () => clock.now };
  return clock;
}

/** Drops the data center's copy of the region's overrides (src/gateway/overrides.ts), which outlives a test. */
export async function dropDataCenterCopy(): Promise<void> {
  await (await caches.open(COPY_CACHE)).delete(copyKey(region, undefined));
}

/**
 * After each test: the real clock back, fresh counter and metrics objects for the next one, the
 * overrides store emptied and the data center's copy of it dropped (storage and the cache outlive
 * a test, and a file: the files of a project share a runner), so no override leaks into the next
 * test or file.
 */
export async function resetAdminState(): Promise<void> {
  gatewayClock = undefined;
  lab = `admin-test:${crypto.randomUUID()}:`;
  await runInDurableObject(env.OVERRIDES.getByName(`config:${region}`), async (instance: OverridesStore, state) => {
    instance.now = () => Date.now();
    await state.storage.deleteAlarm();
    await state.storage.deleteAll();
  });
  await dropDataCenterCopy();
}

/** The region's overrides store (jurisdiction "none" in tests), on the test's clock. */
export async function configObject(clock?: { now: number }) {
  const stub = env.OVERRIDES.getByName(`config:${region}`);
  if (clock) {
    await runInDurableObject(stub, (instance: OverridesStore) => {
      instance.now = () => clock.now;
    });
  }
  return stub;
}

/** Fixes the counter object of `identity` on `rule` at `at`: its window never slides during the test. */
export async function freezeCounter(rule: number, identity: Identity, at: number) {
  const address = counterAddress(region, rule, identityDigest(identity, env.IDENTITY_HMAC_SECRET!));
  const stub = env.COUNTERS.getByName(lab + address.object);
  await runInDurableObject(stub, (instance: CounterObject) => {
    instance.now = () => at;
  });
  return { address, stub };
}

/** What a counter object has stored (to prove a read changed nothing). */
export function storedState(stub: DurableObjectStub<CounterObject>) {
  return runInDurableObject(stub, async (_instance, state) => ({
    entries: JSON.stringify([...state.storage.kv.list()]),
    alarm: await state.storage.getAlarm(),
  }));
}

export { keyed };

/** A POST /runs/query (row 12, counted on the API key) through `send`. */
export const runsQuery = (send: ReturnType<typeof adminGateway>, apiKey: string) => send("/runs/query", { method: "POST", headers: keyed(apiKey) });
