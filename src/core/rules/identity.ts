import { hmac } from "@noble/hashes/hmac.js";
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

// Hashed synchronously in JavaScript (@noble/hashes, audited): a request has no promise to wait on
// before its counter call (crypto.subtle's promise round trip cost more than the hash itself).
// Nothing is cached by identity: a cache keyed by the raw key (and, before, the secret) would keep
// every recent caller's credentials in the isolate's memory, for a few microseconds per request.
/** The shortest secret accepted: RFC 2104 discourages an HMAC key shorter than the hash's output (32 bytes for SHA-256). */
export const MIN_SECRET_BYTES = 32;

/** The keyed HMAC of the last secret used, cloned for each digest (the key's pads are computed once). */
let keyed: { readonly secret: string; readonly mac: ReturnType<typeof hmac.create> } | undefined;

function keyedHmac(secret: string): ReturnType<typeof hmac.create> {
  if (keyed?.secret !== secret) keyed = { secret, mac: hmac.create(sha256, utf8ToBytes(secret)) };
  return keyed.mac;
}

/**
 * Hex digest naming an identity: HMAC-SHA-256 with the region's IDENTITY_HMAC_SECRET, so a leaked
 * object name, log line or metric cannot be tested against guessed keys or enumerated IPv4
 * addresses. The secret is required (src/gateway/settings.ts refuses to serve without one).
 */
export function identityDigest(identity: Identity, secret: string): string {
  return bytesToHex(
    keyedHmac(secret)
      .clone()
      .update(utf8ToBytes(canonicalIdentity(identity)))
      .digest(),
  );
}
