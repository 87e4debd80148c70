import type { Rule } from "../core/rules/load.ts";
import type { IdentityKind, PublishedLimit, Region } from "../core/rules/schema.ts";
import { GatewayError } from "../http/gateway-error.ts";

const IDENTITY_NOUN = { "api-key": "API key", "user-ip": "user and client IP", ip: "client IP" } as const;

/** What a 429 says about the rule that was exhausted. */
export interface Exhausted {
  readonly rule: Rule;
  /** How the request matched, e.g. `POST /runs/query under /api/v1`. */
  readonly matched: string;
  readonly identity: IdentityKind;
  readonly limit: PublishedLimit;
  readonly region: Region;
  readonly retryAfter: number;
}

/** 429: the quota-exceeded problem, naming the rule, how it matched and when to come back. */
export function quotaExceeded({ rule, matched, identity, limit, region, retryAfter }: Exhausted, headers: Record<string, string>): GatewayError {
  return new GatewayError(
    "quota-exceeded",
    `Rate limit "${rule.name}" (row ${rule.id}, ${rule.category}; matched ${matched}) allows ` +
      `${limit.count} requests per ${limit.interval} seconds per ${IDENTITY_NOUN[identity]} in region ${region}. ` +
      `Retry after ${retryAfter} seconds.`,
    { headers: { ...headers, "retry-after": String(retryAfter) }, extensions: { "violated-policies": [rule.name] } },
  );
}

/** 503: the counter did not answer and the gateway fails closed. */
export function limiterUnavailable(rule: Rule, headers: Record<string, string>): GatewayError {
  return new GatewayError("limiter-unavailable", `The rate limiter for rule "${rule.name}" did not answer, and this gateway fails closed. Retry shortly.`, {
    headers: { ...headers, "retry-after": "1" },
  });
}

/**
 * 403: an operator blocked this caller (an identity override, docs/operating.md).
 * Says which rule refused it, never which identity or override matched.
 */
export function identityBlocked(rule: Rule): GatewayError {
  return new GatewayError("forbidden", `This caller is blocked by the gateway's operator on rule "${rule.name}". Contact the API's operator.`);
}
