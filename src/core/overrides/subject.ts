import { clientIpKey, UNKNOWN_CLIENT } from "../rules/client-ip.ts";
import { identityDigest } from "../rules/identity.ts";
import type { Identity } from "../rules/request-facts.ts";
import { parsePrefix, prefixOfClient } from "./ipv6-prefix.ts";
import type { Subject, SubjectKind } from "./types.ts";

/*
 * Subjects are hashed with the gateway's own identityDigest (HMAC-SHA-256 with
 * IDENTITY_HMAC_SECRET), so a stored override holds no raw value, and the digest of a key, an IP
 * or a user at an IP is the one in that caller's counter names and log lines: an operator can
 * block the counter `us:12:<digest>` seen on the dashboard by that digest alone. A user id alone
 * has no counter of its own (user rows count user and IP together), so it is hashed as the
 * user-and-IP identity with an empty IP, which no request has (client keys are never empty).
 */

function identityOf(kind: Exclude<SubjectKind, "ipv6-prefix">, value: string, ip = ""): Identity {
  switch (kind) {
    case "api-key":
      return { kind: "api-key", apiKey: value };
    case "user-ip":
    case "user-id":
      return { kind: "user-ip", userId: value, ip };
    case "ip":
      return { kind: "ip", ip: value };
  }
}

/**
 * The stored subject for a raw value, or why the value cannot name one. IPs are first turned into
 * client keys (an IPv6 address into its /64), exactly as requests are keyed; a `user-ip` subject
 * takes the user id as `value` and the address as `ip`.
 */
export function subjectOf(kind: SubjectKind, value: string, secret: string, ip?: string): { ok: true; subject: Subject } | { ok: false; why: string } {
  if (kind === "ipv6-prefix") {
    const parsed = parsePrefix(value);
    if (!parsed.ok) return parsed;
    return { ok: true, subject: { kind, digest: identityDigest({ kind: "ip", ip: parsed.prefix }, secret), prefixLength: parsed.length } };
  }
  if (kind === "ip") {
    const key = clientIpKey(value);
    if (key === UNKNOWN_CLIENT) return { ok: false, why: `"${value}" is not an IPv4 or IPv6 address` };
    return { ok: true, subject: { kind, digest: identityDigest(identityOf(kind, key), secret) } };
  }
  // The gateway refuses identity headers holding a comma (read-request.ts): no request could match.
  if (value.includes(",")) return { ok: false, why: "an identity value never holds a comma (the gateway refuses such headers)" };
  if (kind === "user-ip") {
    const key = clientIpKey(ip ?? "");
    if (key === UNKNOWN_CLIENT) return { ok: false, why: `"${ip ?? ""}" is not an IPv4 or IPv6 address` };
    return { ok: true, subject: { kind, digest: identityDigest(identityOf(kind, value, key), secret) } };
  }
  return { ok: true, subject: { kind, digest: identityDigest(identityOf(kind, value), secret) } };
}

/** What a request carries, as the gateway read it. */
export interface RequestIdentities {
  readonly apiKey: string | null;
  readonly userId: string | null;
  /** The client key (clientIpKey). */
  readonly clientIp: string;
}

/** Digests of a request's identities, by subject kind (prefixes by length). */
export interface RequestDigests {
  readonly "api-key"?: string;
  /** The user at the request's client key: a user row's counter digest. */
  readonly "user-ip"?: string;
  readonly "user-id"?: string;
  readonly ip?: string;
  readonly prefixes: ReadonlyMap<number, string>;
}

/** What the active overrides need hashed; nothing when no identity override exists. */
export interface DigestNeeds {
  readonly kinds: ReadonlySet<SubjectKind>;
  readonly prefixLengths: readonly number[];
}

/** Hashes only the identities some override could match (nothing when no override names a kind). */
export function requestDigests(request: RequestIdentities, needs: DigestNeeds, secret: string): RequestDigests {
  const hash = (kind: Exclude<SubjectKind, "ipv6-prefix">, value: string | null) =>
    value && needs.kinds.has(kind) ? identityDigest(identityOf(kind, value), secret) : undefined;
  const prefixes = new Map<number, string>();
  for (const length of needs.prefixLengths) {
    const prefix = prefixOfClient(request.clientIp, length);
    if (prefix) prefixes.set(length, identityDigest({ kind: "ip", ip: prefix }, secret));
  }
  const userIp = request.userId && needs.kinds.has("user-ip") ? identityDigest(identityOf("user-ip", request.userId, request.clientIp), secret) : undefined;
  return {
    "api-key": hash("api-key", request.apiKey),
    "user-ip": userIp,
    "user-id": hash("user-id", request.userId),
    ip: hash("ip", request.clientIp),
    prefixes,
  };
}

/** How a subject is shown in the audit log and the dashboard: its kind and a shortened digest. */
export function describeSubject(subject: Subject): string {
  const short = `${subject.digest.slice(0, 8)}…${subject.digest.slice(-4)}`;
  return subject.kind === "ipv6-prefix" ? `ipv6-prefix /${subject.prefixLength} ${short}` : `${subject.kind} ${short}`;
}
