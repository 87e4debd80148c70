/**
 * Where a counter lives: the Durable Object named `object`, under `key` within it. The name holds
 * the region, the rule and the identity's digest, never a raw identity.
 */
export interface CounterAddress {
  /** `<region>:<rule id>:<identity digest>`: the counter's name, in logs and per-isolate caches. */
  readonly name: string;
  /** The Durable Object that holds it. */
  readonly object: string;
  /** Its key within that object ("" when the object holds this counter alone). */
  readonly key: string;
}

/**
 * How many Durable Objects hold one rule's counters in a region. Several identities share an
 * object (by a stable hash of the identity's digest), because creating or waking an object is what
 * a new identity costs most: fewer objects wake less often, while each object's request limit
 * bounds how few can carry a rule. Past that, an overloaded object's requests are decided by the
 * isolate's local window (src/core/limiter/fallback.ts), never admitted uncounted. Why this number, with
 * the measurements and the command that took them: docs/counting.md, "Counting".
 * Changing it moves every counter to another object (their windows restart empty), so it is a
 * constant, not a setting.
 */
export const OBJECTS_PER_RULE = 64;

/**
 * The address of the counter for (region, rule, identity digest): one of the rule's
 * `objectsPerRule` objects, chosen by the digest's leading bits (the same identity always meets
 * the same object), holding the counter under the digest as its key.
 */
export function counterAddress(region: string, ruleId: number, digest: string, objectsPerRule = OBJECTS_PER_RULE): CounterAddress {
  const name = `${region}:${ruleId}:${digest}`;
  const shard = Number.parseInt(digest.slice(0, 8), 16) % objectsPerRule;
  return { name, object: `${region}:${ruleId}:objects-${objectsPerRule}:${shard}`, key: digest };
}
