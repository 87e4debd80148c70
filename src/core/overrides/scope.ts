import type { IdentityKind } from "../rules/schema.ts";
import type { IdentityOverride, Override, SubjectKind } from "./types.ts";

/*
 * Which rules an identity override applies to (docs/overrides.md, "Scope"): only those that count
 * the identity it names, so an override never follows a header onto a rule that does not count
 * that header. A key's override applies on the rules counted per key; a user's (with or without
 * its IP) on the rules counted per user and IP; an address's or prefix's on the rules counted per
 * IP and on those counted per user and IP (that identity holds the address: otherwise any client
 * would step around an address's override by sending some `x-user-id`).
 *
 * One exception, blocks of an address or prefix: they apply on every rule. The address is on every
 * request and cannot be chosen by the client (CF-Connecting-IP is set by Cloudflare's edge), so no
 * one can pick such a block up, and without it a blocked address would pass by adding any
 * `x-api-key` header (it would then meet the key rows).
 */

/** The rule identities that hold each subject kind. */
export const COUNTED_BY: Readonly<Record<SubjectKind, readonly IdentityKind[]>> = {
  "api-key": ["api-key"],
  "user-ip": ["user-ip"],
  "user-id": ["user-ip"],
  ip: ["ip", "user-ip"],
  "ipv6-prefix": ["ip", "user-ip"],
};

const ADDRESS_KINDS: ReadonlySet<SubjectKind> = new Set(["ip", "ipv6-prefix"]);

/** True when the override may apply on a rule counting `ruleIdentity`. */
export function appliesOn(o: Pick<IdentityOverride, "subject" | "action">, ruleIdentity: IdentityKind): boolean {
  if (o.action === "block" && ADDRESS_KINDS.has(o.subject.kind)) return true;
  return COUNTED_BY[o.subject.kind].includes(ruleIdentity);
}

/**
 * The identity digest a request is counted under on a rule counting `ruleIdentity`, when the
 * limit it meets comes from `limitBy`: an address's (or prefix's) `limit` is counted on one counter
 * for the whole address or prefix (its subject's digest), so neither a fresh `x-user-id` (a new
 * user row pair) nor another address in a limited prefix starts a fresh counter. Every other
 * override is counted on the request's own identity (`ownDigest`).
 */
export function countedDigest(limitBy: Override | undefined, ruleIdentity: IdentityKind, ownDigest: string): string {
  if (limitBy?.kind !== "identity" || limitBy.action !== "limit" || !ADDRESS_KINDS.has(limitBy.subject.kind)) return ownDigest;
  if (!COUNTED_BY[limitBy.subject.kind].includes(ruleIdentity)) return ownDigest;
  // A hex digest of an address or prefix: never equal to a user row's digest (another canonical text).
  return limitBy.subject.digest;
}
