import { env, exports } from "cloudflare:workers";
import { createExecutionContext } from "cloudflare:test";
import type { Env } from "../../../src/env.ts";
import type { Rule } from "../../../src/core/rules/load.ts";
import worker from "../../../src/index.ts";

let sequence = 0;

/** A fresh identity for one test, so counters never leak between tests. */
export function freshIdentity() {
  sequence++;
  const n = sequence;
  const tag = `${Date.now().toString(36)}-${n}-${Math.random().toString(36).slice(2, 8)}`;
  return {
    apiKey: `key-${tag}`,
    userId: `user-${tag}`,
    ip: `198.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`,
  };
}
export type TestIdentity = ReturnType<typeof freshIdentity>;

/**
 * Headers that count a request on an API key: `who`'s key from `who`'s address, or a bare key
 * from a fixed address; `extra` added.
 */
export function keyed(who: string | Pick<TestIdentity, "apiKey" | "ip">, extra: Record<string, string> = {}): Record<string, string> {
  const { apiKey, ip } = typeof who === "string" ? { apiKey: who, ip: "198.51.100.7" } : who;
  return { "x-api-key": apiKey, "cf-connecting-ip": ip, ...extra };
}

/** Identity headers a request needs to be counted under `rule`'s identity. */
export function identityHeaders(rule: Rule, who: TestIdentity): Record<string, string> {
  const headers: Record<string, string> = { "cf-connecting-ip": who.ip };
  if (rule.identity === "api-key") headers["x-api-key"] = who.apiKey;
  if (rule.identity === "user-ip") headers["x-user-id"] = who.userId;
  return headers;
}

/** Sends a request through the gateway Worker (its default export), as a client would. */
export function gateway(path: string, init: RequestInit = {}): Promise<Response> {
  return exports.default.fetch(`https://gateway.test${path}`, init);
}

/** A Worker's fetch handler, as src/worker.ts makes it. */
type WorkerHandler = Pick<typeof worker, "fetch">;

/**
 * A sender that calls `app` (by default this runner's instance of src/index.ts's default export,
 * the Worker `gateway` reaches: the same isolate, counters and upstream bindings) with `workerEnv`,
 * in the test's own request context. `exports.default` costs each request a round trip through
 * the test pool's runner object (it resolves the main module there), which about doubles a counted
 * request's time; a test of many thousands of requests sends them so. Work after the response (a
 * lease given back at its end) runs on in the test's context, unawaited, as a request's
 * `waitUntil` runs on after its response.
 */
export function inProcess(app: WorkerHandler = worker, workerEnv: Env = env) {
  return async (path: string, init: RequestInit = {}): Promise<Response> =>
    app.fetch(new Request(`https://gateway.test${path}`, init), workerEnv, createExecutionContext());
}

/** Sends a request to the Worker `gateway` reaches, called in the test's context (inProcess). */
export const gatewayInProcess = inProcess();

/** Sends `n` identical requests, `concurrency` at a time; returns the status counts. */
export async function burst(n: number, make: () => Promise<Response>, concurrency = 100): Promise<Map<number, number>> {
  const statuses = new Map<number, number>();
  for (let sent = 0; sent < n;) {
    const batch = Math.min(concurrency, n - sent);
    const responses = await Promise.all(Array.from({ length: batch }, make));
    for (const res of responses) {
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      await res.body?.cancel();
    }
    sent += batch;
  }
  return statuses;
}
