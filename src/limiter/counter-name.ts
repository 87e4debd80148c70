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
 * object (by a stable hash of the identity's digest), because creating an object is what a new
 * identity costs most (README, "Counting": 1,000 new API keys were answered about 4x faster with
 * shared objects than with one object each, measured side by side). 256 keeps each object far
 * below Cloudflare's soft limit of about 1,000 requests per second per object: a rule would need
 * a quarter of a million counter calls per second in one region to reach it, and one hot key
 * reaches its object as one coalesced call at a time per isolate. Changing this number moves every
 * counter to another object (their windows restart empty), so it is a constant, not a setting.
 */
export const OBJECTS_PER_RULE = 256;

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
