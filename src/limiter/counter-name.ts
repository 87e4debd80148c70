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
 * The address of the counter for (region, rule, identity digest). With `objectsPerRule` unset,
 * each counter has an object of its own; set, the rule's counters are spread over that many
 * objects by the digest's leading bits (a stable hash: the same identity always meets the same
 * object), each holding many counters by key.
 */
export function counterAddress(region: string, ruleId: number, digest: string, objectsPerRule?: number): CounterAddress {
  const name = `${region}:${ruleId}:${digest}`;
  if (objectsPerRule === undefined) return { name, object: name, key: "" };
  const shard = Number.parseInt(digest.slice(0, 8), 16) % objectsPerRule;
  return { name, object: `${region}:${ruleId}:objects-${objectsPerRule}:${shard}`, key: digest };
}
