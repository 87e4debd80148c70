import type { ConcurrencyRule } from "../core/rules/concurrency-rules.ts";
import type { IdentityKind, Region } from "../core/rules/schema.ts";
import { GatewayError } from "../http/gateway-error.ts";

const IDENTITY_NOUN = { "api-key": "API key", "user-ip": "user and client IP", ip: "client IP" } as const;

/** What a 429 says about the concurrency rule whose slots are all held. */
export interface SlotsExhausted {
  readonly rule: ConcurrencyRule;
  /** How the request matched, e.g. `GET (or HEAD) template /threads/{uuid}/stream/events`. */
  readonly matched: string;
  readonly identity: IdentityKind;
  readonly region: Region;
  /** Whole seconds until the earliest held lease could lapse (docs/counting.md, "Concurrency"). */
  readonly retryAfter: number;
}

/**
 * 429 before any 101 or stream: every slot of the identity's concurrency counter is held. The
 * same problem type as an exhausted rate limit, with the rate-limit headers of the concurrency
 * policy; `Retry-After` is the soonest a slot frees unless a holder closes one first.
 */
export function slotsExhausted({ rule, matched, identity, region, retryAfter }: SlotsExhausted, headers: Record<string, string>): GatewayError {
  const { count } = rule.limits[region];
  return new GatewayError(
    "quota-exceeded",
    `Concurrency limit "${rule.name}" (row ${rule.id}, ${rule.category}; matched ${matched}) allows ` +
      `${count} requests held open at once per ${IDENTITY_NOUN[identity]} in region ${region}. ` +
      `One frees when another of them closes; retry after ${retryAfter} seconds at the latest.`,
    { headers: { ...headers, "retry-after": String(retryAfter) }, extensions: { "violated-policies": [rule.name] } },
  );
}

/** 503: the slots object did not answer and the gateway fails closed. */
export function slotsUnavailable(rule: ConcurrencyRule, headers: Record<string, string>): GatewayError {
  return new GatewayError(
    "limiter-unavailable",
    `The concurrency limiter for rule "${rule.name}" did not answer, and this gateway fails closed. Retry shortly.`,
    {
      headers: { ...headers, "retry-after": "1" },
    },
  );
}
