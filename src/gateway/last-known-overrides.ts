import type { OverridesSnapshot } from "../core/overrides/types.ts";

/*
 * The last known overrides, kept where a new isolate can read them while the overrides store
 * cannot be reached (docs/overrides.md, "Outage"): the data center's own cache (the Workers Cache
 * API), one entry per region and jurisdiction, written by every isolate after each successful read
 * of the object. The Cache API depends on no Durable Object, and its entries never leave the data
 * center that wrote them (they are not replicated, not even to other data centers), so the copy
 * stays wherever the Worker runs: for the EU environment, served with Regional Services (EU), in
 * the EU. The entry is never served to a client: it lives in a named cache, under a URL of the
 * reserved `.internal` domain, and it is read only by this module.
 *
 * A copy carries when the read that produced it started (`readAt`): a copy older than
 * MAX_COPY_AGE_MS is not enforced, so an override ended while some data center's copy was not
 * refreshed cannot come back from that copy for longer than that.
 */

/** How long after it was read from the object a copy of the overrides is still enforced. */
export const MAX_COPY_AGE_MS = 3_600_000;

/** The name of the cache (caches.open) the copies live in. */
export const COPY_CACHE = "tollgate-overrides";

/** A copy as kept: the snapshot and when the read that produced it started (epoch ms). */
export interface KeptCopy {
  readonly readAt: number;
  readonly snapshot: OverridesSnapshot;
}

/** Where the copy of a region's overrides is kept (a key, never a URL anything serves). */
export function copyKey(region: string, jurisdiction: string | undefined): string {
  return `https://overrides.tollgate.internal/${region}/${jurisdiction ?? "none"}`;
}

/** Writes the copy; the Cache API drops it by itself once it is too old to be enforced. */
export async function keepCopy(key: string, copy: KeptCopy): Promise<void> {
  const cache = await caches.open(COPY_CACHE);
  const body = JSON.stringify(copy);
  await cache.put(key, new Response(body, { headers: { "content-type": "application/json", "cache-control": `max-age=${MAX_COPY_AGE_MS / 1000}` } }));
}

/** The copy kept in this data center, or undefined when there is none or it is unreadable. */
export async function lastKnownCopy(key: string): Promise<KeptCopy | undefined> {
  const cache = await caches.open(COPY_CACHE);
  const res = await cache.match(key);
  if (!res) return undefined;
  const kept = (await res.json()) as Partial<KeptCopy>;
  if (typeof kept.readAt !== "number" || !Number.isFinite(kept.readAt) || !isSnapshot(kept.snapshot)) return undefined;
  return { readAt: kept.readAt, snapshot: kept.snapshot };
}

function isSnapshot(value: unknown): value is OverridesSnapshot {
  if (typeof value !== "object" || value === null) return false;
  const { version, overrides } = value as Partial<OverridesSnapshot>;
  return typeof version === "number" && Array.isArray(overrides);
}

/** Whether a copy read at `readAt` may still be enforced at `now`. */
export function fresh(readAt: number, now: number): boolean {
  return now - readAt <= MAX_COPY_AGE_MS;
}
