import { setBounded } from "../limiter/bounded-map.ts";
import { canonicalDigest, canonicalIdentity } from "./identity.ts";
import type { Identity } from "./request-facts.ts";

/**
 * How many identities' digests an isolate keeps. A warm isolate meets the same callers again and
 * again; a few thousand covers a busy one's working set (bench:gateway's warm shape sends 1,000
 * keys) at well under a megabyte.
 */
export const DIGEST_CACHE_ENTRIES = 4096;

/**
 * The identity digests of one secret (identityDigest), the most recent kept per isolate so a
 * returning caller is not hashed again: the HMAC in JavaScript was a measurable share of a warm
 * request's CPU (docs/bench.md, "Where a warm request's CPU goes"). The raw identities it is keyed
 * by stay in this map in the isolate's memory, as each request's own headers do: never written to
 * storage, an object's name, a log line or a metric, and never handed out (only `digest` reads it).
 * Bounded (the least recently used dropped first), one per region runtime, so a new secret comes
 * with new settings and a new, empty cache.
 *
 * @example
 * const digests = new IdentityDigests(settings.hmacSecret);
 * digests.digest({ kind: "api-key", apiKey }); // the same hex as identityDigest(identity, secret)
 */
export class IdentityDigests {
  readonly #secret: string;
  readonly #max: number;
  readonly #digests = new Map<string, string>();

  /** @param max how many digests are kept (DIGEST_CACHE_ENTRIES) */
  constructor(secret: string, max: number = DIGEST_CACHE_ENTRIES) {
    if (!Number.isInteger(max) || max < 1) throw new RangeError(`IdentityDigests: max must be a positive integer (got ${max})`);
    this.#secret = secret;
    this.#max = max;
  }

  /** The identity's digest under this cache's secret. */
  digest(identity: Identity): string {
    const canonical = canonicalIdentity(identity);
    const known = this.#digests.get(canonical);
    if (known !== undefined) {
      // Most recent again, so a steady caller outlives a stream of one-off ones.
      this.#digests.delete(canonical);
      this.#digests.set(canonical, known);
      return known;
    }
    const digest = canonicalDigest(canonical, this.#secret);
    setBounded(this.#digests, canonical, digest, this.#max);
    return digest;
  }

  /** How many digests are kept now. */
  get size(): number {
    return this.#digests.size;
  }
}
