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

/** The address of the counter for (region, rule, identity digest): one object per counter. */
export function counterAddress(region: string, ruleId: number, digest: string): CounterAddress {
  const name = `${region}:${ruleId}:${digest}`;
  return { name, object: name, key: "" };
}
