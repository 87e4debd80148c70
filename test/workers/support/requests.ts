import { exports } from "cloudflare:workers";
import type { Rule } from "../../../src/core/rules/load.ts";

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
