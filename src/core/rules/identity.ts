import { hmac, type _HMAC } from "@noble/hashes/hmac.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";
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
export function canonicalIdentity(identity: Identity): string {
  switch (identity.kind) {
    case "api-key":
      return `api-key:${identity.apiKey}`;
    case "user-ip":
      return `user-ip:${JSON.stringify([identity.userId, identity.ip])}`;
    case "ip":
      return `ip:${identity.ip}`;
  }
}

// Hashed synchronously in JavaScript (@noble/hashes, audited): a request has no promise to wait on
// before its counter call (crypto.subtle's promise round trip cost more than the hash itself).
// The request path keeps the digests of recent identities per isolate (identity-digests.ts).
/** The shortest secret accepted: RFC 2104 discourages an HMAC key shorter than the hash's output (32 bytes for SHA-256). */
export const MIN_SECRET_BYTES = 32;

type Hmac = _HMAC<ReturnType<typeof sha256.create>>;

/** The keyed HMAC of the last secret used, copied for each digest (the key's pads are computed once). */
let keyed: { readonly secret: string; readonly mac: Hmac } | undefined;
/** The copy each digest is computed in, and the bytes it writes: reused, so a digest allocates only its text. */
let scratch: Hmac | undefined;
const digestBytes = new Uint8Array(sha256.outputLen);
const utf8 = new TextEncoder();

function keyedHmac(secret: string): Hmac {
  if (keyed?.secret !== secret) keyed = { secret, mac: hmac.create(sha256, utf8ToBytes(secret)) as Hmac };
  return keyed.mac;
}

/**
 * Hex digest naming an identity: HMAC-SHA-256 with the region's IDENTITY_HMAC_SECRET, so a leaked
 * object name, log line or metric cannot be tested against guessed keys or enumerated IPv4
 * addresses. The secret is required (src/gateway/settings.ts refuses to serve without one).
 */
export function identityDigest(identity: Identity, secret: string): string {
  return canonicalDigest(canonicalIdentity(identity), secret);
}

/** The digest of an identity's canonical text (canonicalIdentity). */
export function canonicalDigest(canonical: string, secret: string): string {
  // Synchronous from copy to hex, so no other digest can reuse the scratch copy in between.
  const mac = (scratch = keyedHmac(secret)._cloneInto(scratch));
  mac.update(utf8.encode(canonical));
  mac.digestInto(digestBytes);
  return bytesToHex(digestBytes);
}
