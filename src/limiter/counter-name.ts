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
 * a new identity costs most (docs/counting.md). 64, chosen by measurement and Cloudflare's limit:
 * - Waking an idle object costs about 3 ms of CPU on one workerd, so a rule spread over many
 *   objects pays a wake-up per object after every idle spell: 1,000 new API keys after the
 *   objects went idle took 2.78 ms of CPU per key with 256 objects, 2.13 with 64 and 2.10 with
 *   32 (`npm run bench:gateway -- --rounds 4 --shapes 1 --targets bare,gateway,peer`, the constant
 *   edited for each run, 2026-11-23).
 * - Capacity: an object's soft limit is about 1,000 requests per second, so 64 objects take
 *   64,000 counter calls per second per rule and region, and one call carries every request an
 *   isolate queued for its object (the coalescer). Past that, an overloaded object's requests are
 *   decided by the isolate's local window (src/limiter/fallback.ts), never admitted uncounted.
 * Changing this number moves every counter to another object (their windows restart empty), so it
 * is a constant, not a setting.
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
