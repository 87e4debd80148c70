import type { IdentityKind } from "./schema.ts";
import type { Identity, RequestFacts } from "./request-facts.ts";

/**
 * The identity a rule of kind `kind` would count this request under, or undefined when the
 * request does not carry it (a rule applies only when its identity is present).
 */
export function identityFor(kind: IdentityKind, facts: RequestFacts): Identity | undefined {
  switch (kind) {
    case "api-key":
      return facts.apiKey ? { kind, apiKey: facts.apiKey } : undefined;
    case "user-ip":
      return facts.userId ? { kind, userId: facts.userId, ip: facts.clientIp } : undefined;
    case "ip":
      return { kind, ip: facts.clientIp };
  }
}

/** Unambiguous text for an identity: the kind is part of it, and JSON keeps user and IP apart. */
function canonicalIdentity(identity: Identity): string {
  switch (identity.kind) {
    case "api-key":
      return `api-key:${identity.apiKey}`;
    case "user-ip":
      return `user-ip:${JSON.stringify([identity.userId, identity.ip])}`;
    case "ip":
      return `ip:${identity.ip}`;
  }
}

const encoder = new TextEncoder();
// Spelled this way because Node's and Workers' type libraries declare CryptoKey differently.
type HmacKey = Awaited<ReturnType<typeof crypto.subtle.importKey>>;
// Keys, not promises of keys: a request must never wait on a promise another request started
// (workerd refuses I/O resumed in another request's context).
const hmacKeys = new Map<string, HmacKey>();

async function hmacKey(secret: string): Promise<HmacKey> {
  let key = hmacKeys.get(secret);
  if (!key) {
    key = await crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
    hmacKeys.set(secret, key);
  }
  return key;
}

/** Digests this isolate computed, by secret and identity: a warm request hashes nothing. */
const digests = new Map<string, string>();
/** Bound on `digests` (about 1.5 MB at most); the oldest entry goes first when full. */
export const DIGEST_CACHE_SIZE = 10_000;

/**
 * Hex digest naming an identity: HMAC-SHA-256 with `secret` when one is configured (so a leaked
 * object name cannot be tested against guessed keys), plain SHA-256 otherwise. Raw keys never
 * leave this function (the per-isolate cache holds them in memory only, as the request does).
 */
export async function identityDigest(identity: Identity, secret?: string): Promise<string> {
  const text = canonicalIdentity(identity);
  const cacheKey = digestKey(text, secret);
  const cached = digests.get(cacheKey);
  if (cached !== undefined) return cached;
  const data = encoder.encode(text);
  const digest = toHex(new Uint8Array(secret
    ? await crypto.subtle.sign("HMAC", await hmacKey(secret), data)
    : await crypto.subtle.digest("SHA-256", data)));
  if (digests.size >= DIGEST_CACHE_SIZE) digests.delete(digests.keys().next().value!);
  digests.set(cacheKey, digest);
  return digest;
}

/**
 * The digest of `identity` when this isolate has computed it already, with no promise to wait on
 * (what identityDigest would answer); undefined otherwise.
 */
export function knownDigest(identity: Identity, secret?: string): string | undefined {
  return digests.get(digestKey(canonicalIdentity(identity), secret));
}

function digestKey(text: string, secret: string | undefined): string {
  return `${secret === undefined ? "-" : `+${secret}`}\n${text}`;
}

/** Digests cached in this isolate, for tests. */
export function cachedDigests(): number {
  return digests.size;
}

function toHex(bytes: Uint8Array): string {
  let out = "";
  for (const b of bytes) out += b.toString(16).padStart(2, "0");
  return out;
}
