// Pure: the request a rule is tested with, and the identities its clients use. Derived from the
// rule itself (its first matcher and its identity kind), then checked against the gateway's own
// classifier, so the load test can never drift from the rule table.
import type { Classifier } from "../../src/core/rules/classify.ts";
import { clientIpKey } from "../../src/core/rules/client-ip.ts";
import type { Rule } from "../../src/core/rules/load.ts";
import { normalizePath } from "../../src/core/rules/normalize.ts";
import type { SampleRequest } from "../../src/core/rules/sample-request.ts";

/** The three clients of a rule; each gets its own identity unless the identity cannot vary. */
export const PHASES = ["steady", "burst", "retry"] as const;
export type Phase = (typeof PHASES)[number];

export interface ClientIdentity {
  /** Groups answers that share one counter on the gateway (the analysis is per counter). */
  readonly key: string;
  /** Headers that make the gateway count the request under this identity. */
  readonly headers: Readonly<Record<string, string>>;
  /** The machine's address the client sends from (--source-ips), when the gateway sees the socket's. */
  readonly localAddress?: string;
}

/**
 * Client address number `n` in 198.18.0.0/15 (RFC 2544, reserved for benchmarking): 131,072
 * distinct addresses, never a real client's.
 */
export function benchmarkIp(n: number): string {
  const value = n % 131_072;
  return `198.${18 + (value >> 16)}.${(value >> 8) & 255}.${value & 255}`;
}

/**
 * The identity of one client of `rule`. `varyIp` is true for a local gateway (it takes
 * CF-Connecting-IP from the client); against a deployed gateway Cloudflare sets that header, so
 * every client has the tool's own address and IP-keyed rules share one counter across phases.
 *
 * @param runId distinguishes runs against the same deployed gateway (keys and user ids stay fresh)
 * @param ipNumber a number unique to this client within the run, when `varyIp`
 */
export function clientIdentity(rule: Rule, phase: Phase, runId: string, varyIp: boolean, ipNumber: number): ClientIdentity {
  const tag = `lt-${runId}-r${rule.id}-${phase}`;
  const headers: Record<string, string> = {};
  const ip = varyIp ? benchmarkIp(ipNumber) : undefined;
  if (ip) headers["cf-connecting-ip"] = ip;
  switch (rule.identity) {
    case "api-key":
      headers["x-api-key"] = tag;
      return { key: `api-key:${tag}`, headers };
    case "user-ip":
      headers["x-user-id"] = tag;
      return { key: `user-ip:${tag}@${ip ?? "tool"}`, headers };
    case "ip":
      return { key: `ip:${ip ?? "tool"}`, headers };
  }
}

/**
 * Throws unless the gateway's classifier counts `request` with `identity` under `rule`: the tool
 * refuses to test a row with traffic that would meet another one.
 */
export function assertMeetsRule(classifier: Classifier, rule: Rule, request: SampleRequest, identity: ClientIdentity): void {
  const normalized = normalizePath(request.path);
  if (!normalized.ok) throw new Error(`row ${rule.id}: sample path ${request.path} is malformed: ${normalized.detail}`);
  const met = classifier.classify({
    method: request.method,
    path: normalized.path,
    apiKey: identity.headers["x-api-key"],
    userId: identity.headers["x-user-id"],
    clientIp: clientIpKey(identity.headers["cf-connecting-ip"] ?? "192.0.2.1"),
  }).rule;
  if (met.id !== rule.id) {
    throw new Error(`row ${rule.id}: ${request.method} ${request.path} as ${rule.identity} meets row ${met.id}, not row ${rule.id}`);
  }
}
