import { counterAddress, type CounterAddress, type Limit } from "../core/limiter/index.ts";
import { countedDigest } from "../core/overrides/scope.ts";
import type { Override } from "../core/overrides/types.ts";
import type { Rule } from "../core/rules/load.ts";
import type { PublishedLimit } from "../core/rules/schema.ts";
import type { GatewaySettings } from "./settings.ts";

/** Where a request is counted and under which limit (countedCounter). */
export interface CountedCounter {
  /** The counter, as logs and metrics name it: the identity's, or the address's or prefix's an override limits. */
  readonly counter: CounterAddress;
  /** The same counter as the isolate's caches know it: its name carries a limit other than the published one (countedAddress). */
  readonly address: CounterAddress;
  /** The limit in the limiter's terms (TIME_SCALE applied). */
  readonly limit: Limit;
}

/**
 * Where a request on `rule` by the identity of `digest` is counted under `effective`'s limit: the
 * one answer the request path counts on and the admin API's inspect reads, so an operator sees
 * the counter requests meet. An address's or prefix's limit holds for the whole address
 * (src/core/overrides/scope.ts, countedDigest).
 *
 * @example
 * const { counter, address, limit } = countedCounter(settings, rule, identityDigest(identity, settings.hmacSecret), effective);
 */
export function countedCounter(
  settings: Pick<GatewaySettings, "region" | "timeScale">,
  rule: Rule,
  digest: string,
  effective: { readonly limit: PublishedLimit; readonly limitBy?: Override | undefined },
): CountedCounter {
  const counter = counterAddress(settings.region, rule.id, countedDigest(effective.limitBy, rule.identity, digest));
  return { counter, address: countedAddress(counter, effective.limit, rule.limits[settings.region]), limit: limiterLimit(effective.limit, settings.timeScale) };
}

/**
 * Where a request is counted under `limit`. The object and key never change, so the window carries
 * on across limit changes. But while a limit other than the published one applies, the name the
 * isolate's caches go by (deny cache, coalescer, local fallback) carries it: a denial remembered
 * under one limit is then never answered under a raised one. (A denial remembered under a limit
 * stays true under any lower one, so sharing the published name with lowered limits is not needed
 * for safety, only raised ones must not share it; giving every non-published limit its own name
 * covers both.)
 */
export function countedAddress(address: CounterAddress, limit: PublishedLimit, published: PublishedLimit): CounterAddress {
  if (limit.count === published.count && limit.interval === published.interval) return address;
  return { ...address, name: `${address.name}@${limit.count}/${limit.interval}` };
}

/** The limiter's limit for a published one. TIME_SCALE (development only) shrinks every window; headers still speak real seconds. */
export function limiterLimit(published: PublishedLimit, timeScale: number): Limit {
  return { count: published.count, intervalMs: Math.max(1, Math.round((published.interval * 1000) / timeScale)) };
}
