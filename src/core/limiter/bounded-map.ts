/**
 * Sets `key` in `map` as its most recent entry, dropping the least recent one past `max`: the
 * per-isolate caches (deny cache aside) stay bounded whatever the number of identities.
 */
export function setBounded<V>(map: Map<string, V>, key: string, value: V, max: number): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > max) {
    const oldest = map.keys().next().value;
    if (oldest !== undefined) map.delete(oldest);
  }
}
