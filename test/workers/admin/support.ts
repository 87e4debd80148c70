// Shared by the admin API's Workers-runtime tests: a gateway with an admin token, a request
// helper, and clocks the tests drive (the overrides' clock, the configuration object's, and a
// counter object's), so nothing depends on how fast the machine is.
import { env } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import type { Env } from "../../../src/env.ts";
import type { RateLimiter } from "../../../src/durable-objects/rate-limiter.ts";
import type { ConfigStore } from "../../../src/durable-objects/config-store.ts";
import { counterAddress } from "../../../src/limiter/index.ts";
import { identityDigest } from "../../../src/rules/identity.ts";
import type { Identity } from "../../../src/rules/request-facts.ts";
import { gatewayWith } from "../support/custom-gateway.ts";

export const region = env.REGION as "us" | "eu";
export const TOKEN = "test-admin-token-0123456789abcdef";

/**
 * Counter objects are shared by many identities (OBJECTS_PER_RULE), so a test that freezes one's
 * clock would freeze other tests' counters too. The admin tests' gateways therefore count in
 * objects of their own: the same names under a prefix that changes with every test.
 */
let lab = `admin-test:${crypto.randomUUID()}:`;
const privateLimiter = {
  jurisdiction: () => privateLimiter,
  getByName: (name: string) => env.LIMITER.getByName(lab + name),
} as unknown as Env["LIMITER"];

/** The clock the next admin gateways run on (driveOverridesClock), the runtime's by default. */
let gatewayClock: { now(): number } | undefined;

/**
 * A gateway with the admin API on (ADMIN_TOKEN set), its own counter objects, and any other
 * bindings replaced, on the clock driveOverridesClock set (each gateway is an isolate of its own).
 */
export function adminGateway(overrides: Partial<Env> = {}) {
  return gatewayWith({ ADMIN_TOKEN: TOKEN, LIMITER: privateLimiter, ...overrides }, undefined, gatewayClock);
}

export type Send = ReturnType<typeof gatewayWith>;

/** An admin API call with the token (or `token: null` for none). */
export function admin(send: Send, method: string, path: string, options: { body?: unknown; token?: string | null; headers?: Record<string, string> } = {}) {
  const token = options.token === undefined ? TOKEN : options.token;
  const headers: Record<string, string> = { ...options.headers };
  if (token !== null) headers.authorization = `Bearer ${token}`;
  if (options.body !== undefined) headers["content-type"] = "application/json";
  return send(`/_tollgate${path}`, { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body) });
}

/** The clock of the gateways made after it (their overrides, counting and metrics), driven by the test. */
export function driveOverridesClock(start: number) {
  const clock = { now: start };
  gatewayClock = { now: () => clock.now };
  return clock;
}

/**
 * After each test: the real clock back, the configuration object emptied (storage outlives a
 * test here) and this isolate's copies of it dropped, so no override leaks into the next test.
 */
export async function resetAdminState(): Promise<void> {
  gatewayClock = undefined;
  lab = `admin-test:${crypto.randomUUID()}:`;
  await runInDurableObject(env.CONFIG.getByName(`config:${region}`), async (instance: ConfigStore, state) => {
    instance.now = () => Date.now();
    await state.storage.deleteAlarm();
    await state.storage.deleteAll();
  });
}

/** The region's configuration object (jurisdiction "none" in tests), on the test's clock. */
export async function configObject(clock?: { now: number }) {
  const stub = env.CONFIG.getByName(`config:${region}`);
  if (clock) {
    await runInDurableObject(stub, (instance: ConfigStore) => {
      instance.now = () => clock.now;
    });
  }
  return stub;
}

/** Fixes the counter object of `identity` on `rule` at `at`: its window never slides during the test. */
export async function freezeCounter(rule: number, identity: Identity, at: number) {
  const address = counterAddress(region, rule, await identityDigest(identity));
  const stub = env.LIMITER.getByName(lab + address.object);
  await runInDurableObject(stub, (instance: RateLimiter) => {
    instance.now = () => at;
  });
  return { address, stub };
}

/** What a counter object has stored (to prove a read changed nothing). */
export function storedState(stub: DurableObjectStub<RateLimiter>) {
  return runInDurableObject(stub, async (_instance, state) => ({
    entries: JSON.stringify([...state.storage.kv.list()]),
    alarm: await state.storage.getAlarm(),
  }));
}

export const keyed = (apiKey: string, ip = "198.51.100.7") => ({ "x-api-key": apiKey, "cf-connecting-ip": ip });
