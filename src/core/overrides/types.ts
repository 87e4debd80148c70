import type { Mode, PublishedLimit, Region } from "../rules/schema.ts";

/**
 * Who an identity override is for. Values are hashed before they are stored (subject.ts): an
 * override holds a digest, never a raw key, user id or address.
 * - `api-key`: requests carrying that `x-api-key`;
 * - `user-ip`: requests carrying that `x-user-id` from one client key: exactly what a user row
 *   counts (docs/rules.md, "Identity");
 * - `user-id`: requests carrying that `x-user-id`, from any IP. The header is the client's to set,
 *   so this subject can only restrict (block, or a limit no laxer than the rule's: bounds.ts);
 * - `ip`: one client key (an IPv4 address, or an IPv6 /64, as counters key clients);
 * - `ipv6-prefix`: every IPv6 client inside a prefix of length 1..64.
 * Which rules each applies to: scope.ts.
 */
export const SUBJECT_KINDS = ["api-key", "user-ip", "user-id", "ip", "ipv6-prefix"] as const;
export type SubjectKind = (typeof SUBJECT_KINDS)[number];

export interface Subject {
  readonly kind: SubjectKind;
  /** Hex digest (identityDigest): HMAC-SHA-256 with IDENTITY_HMAC_SECRET, or SHA-256. */
  readonly digest: string;
  /** `ipv6-prefix` only: the prefix length, so a request's address can be cut to it. */
  readonly prefixLength?: number;
}

/** Limits per region; a region left out keeps its own (published or rule-override) limit. */
export type RegionLimits = Partial<Record<Region, PublishedLimit>>;

/** Who made an override, and until when it applies. */
interface OverrideMeta {
  readonly id: string;
  readonly reason: string;
  /** Epoch ms. */
  readonly createdAt: number;
  /** The admin token's name (docs/operating.md). */
  readonly createdBy: string;
  /** Epoch ms; the override applies while `now < expiresAt`. Absent: until ended. */
  readonly expiresAt?: number;
}

/** A whole rule's mode and/or limits changed. */
export interface RuleOverride extends OverrideMeta {
  readonly kind: "rule";
  readonly rule: number;
  readonly mode?: Mode;
  readonly limits?: RegionLimits;
}

/** One identity treated differently, on one rule or (rule absent) on every rule. */
export interface IdentityOverride extends OverrideMeta {
  readonly kind: "identity";
  readonly rule?: number;
  readonly subject: Subject;
  readonly action: "limit" | "exempt" | "block";
  /** `action: "limit"` only. */
  readonly limits?: RegionLimits;
}

export type Override = RuleOverride | IdentityOverride;

/** An override as a validated request describes it, before the store gives it an id and times. */
export type OverrideChange = (Omit<RuleOverride, keyof OverrideMeta> & ChangeMeta) | (Omit<IdentityOverride, keyof OverrideMeta> & ChangeMeta);

interface ChangeMeta {
  readonly reason: string;
  /** Absolute expiry (epoch ms), or a lifetime counted from when the store records the change. */
  readonly expiresAt?: number;
  readonly expiresInSeconds?: number;
}

/** The whole runtime configuration: what every isolate caches (src/gateway/overrides.ts). */
export interface OverridesSnapshot {
  /** Grows by one with every change, expiry included. */
  readonly version: number;
  readonly overrides: readonly Override[];
}

export const EMPTY_SNAPSHOT: OverridesSnapshot = { version: 0, overrides: [] };

/** One line of the audit log: every change, with what it replaced. */
export interface AuditEntry {
  /** Position in the log, from 1. */
  readonly seq: number;
  /** Epoch ms. */
  readonly at: number;
  /** The admin token's name, "expiry" when an override ran out, "bounds" for a clamp. */
  readonly actor: string;
  /** `clamp`: a stored override brought within the bounds when it was loaded (bounds.ts). */
  readonly action: "set" | "end" | "expire" | "clamp";
  /** What the change is about, e.g. `rule 12` or `api-key 5f2c…9a on rule 12` (digests only). */
  readonly target: string;
  /** The override after the change (`set`). */
  readonly override?: Override;
  /** The override it replaced or ended, if any. */
  readonly previous?: Override;
}
