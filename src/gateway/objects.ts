import type { Region } from "../core/rules/schema.ts";

/**
 * The namespace as the region's objects are reached: in its jurisdiction when the region has one
 * (COUNTER_JURISDICTION), so what they hold (identity digests, overrides, metrics) stays in the
 * region; as bound otherwise (local runs, where jurisdictions cannot be emulated). Every Durable
 * Object the gateway calls (counters, overrides store, metrics store, the admin throttle's
 * counters) is reached through here.
 *
 * @example
 * inJurisdiction(env.COUNTERS, settings.jurisdiction).getByName(address.object);
 */
export function inJurisdiction<N extends { jurisdiction(jurisdiction: Region): N }>(namespace: N, jurisdiction: Region | undefined): N {
  return jurisdiction ? namespace.jurisdiction(jurisdiction) : namespace;
}
