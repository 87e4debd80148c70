import type { Rule } from "../rules/load.ts";
import type { IdentityKind, Mode, PublishedLimit, Region } from "../rules/schema.ts";
import type { DigestNeeds, RequestDigests } from "./subject.ts";
import type { ConfigSnapshot, IdentityOverride, Override, RuleOverride, SubjectKind } from "./types.ts";

/** A snapshot indexed for the request path: a rule's override by id, identity overrides by digest. */
export interface CompiledOverrides {
  readonly version: number;
  readonly overrides: readonly Override[];
  readonly byRule: ReadonlyMap<number, RuleOverride>;
  /** Keyed `<kind>:<digest>`. */
  readonly byIdentity: ReadonlyMap<string, readonly IdentityOverride[]>;
  readonly needs: DigestNeeds;
}

/** Indexes a snapshot once per fetch, so a request does a few map lookups. */
export function compileOverrides(snapshot: ConfigSnapshot): CompiledOverrides {
  const byRule = new Map<number, RuleOverride>();
  const byIdentity = new Map<string, IdentityOverride[]>();
  const kinds = new Set<SubjectKind>();
  const prefixLengths = new Set<number>();
  for (const override of snapshot.overrides) {
    if (override.kind === "rule") {
      byRule.set(override.rule, override);
      continue;
    }
    const key = `${override.subject.kind}:${override.subject.digest}`;
    byIdentity.set(key, [...(byIdentity.get(key) ?? []), override]);
    kinds.add(override.subject.kind);
    if (override.subject.prefixLength !== undefined) prefixLengths.add(override.subject.prefixLength);
  }
  return { version: snapshot.version, overrides: snapshot.overrides, byRule, byIdentity, needs: { kinds, prefixLengths: [...prefixLengths] } };
}

/** What applies to one request on one rule, after every override (README, "Operating the gateway"). */
export type Effective =
  | { readonly verdict: "block" | "exempt"; readonly by: IdentityOverride }
  | {
      readonly verdict: "count";
      readonly limit: PublishedLimit;
      readonly mode: Mode;
      /** The override the limit comes from, if not the published table. */
      readonly limitBy?: Override;
      /** The rule override the mode comes from, if any. */
      readonly modeBy?: RuleOverride;
    };

const live = (o: Override, now: number) => o.expiresAt === undefined || now < o.expiresAt;

/**
 * Which subject kinds can change a rule's limit: an identity limit applies to the counters keyed by
 * that identity (a key's limit to key rows, a user's to user rows, an address's or prefix's to IP
 * rows). Blocks and exemptions apply to any request carrying the subject, on any rule they name.
 */
const LIMITS_RULES_OF: Readonly<Record<SubjectKind, IdentityKind>> = { "api-key": "api-key", "user-id": "user-ip", ip: "ip", "ipv6-prefix": "ip" };

/**
 * The effective verdict and limit for a request on `rule` in `region`, in order of precedence:
 * blocked > exempt > identity limit > rule override > published. Among identity limits the most
 * specific wins: one naming the rule over one for every rule, an exact identity over a prefix, a
 * longer prefix over a shorter. Expired overrides are skipped here, on every request, so an
 * expiry takes effect on time whatever the age of the cached snapshot.
 */
export function resolve(compiled: CompiledOverrides, rule: Rule, region: Region, digests: RequestDigests, now: number): Effective {
  const identity = compiled.byIdentity.size > 0 ? matchingIdentityOverrides(compiled, rule.id, digests, now) : [];
  const block = identity.find((o) => o.action === "block");
  if (block) return { verdict: "block", by: block };
  const exempt = identity.find((o) => o.action === "exempt");
  if (exempt) return { verdict: "exempt", by: exempt };

  const ruleLevel = ruleEffective(compiled, rule, region, now);
  const identityLimit = identity
    .filter((o) => o.action === "limit" && o.limits?.[region] && LIMITS_RULES_OF[o.subject.kind] === rule.identity)
    .sort((a, b) => specificity(b) - specificity(a))[0];
  return identityLimit ? { ...ruleLevel, limit: identityLimit.limits![region]!, limitBy: identityLimit } : ruleLevel;
}

/** The rule as it applies to everyone: its override's mode and limit, else the published ones. */
export function ruleEffective(compiled: CompiledOverrides, rule: Rule, region: Region, now: number): Extract<Effective, { verdict: "count" }> {
  const override = compiled.byRule.size > 0 ? compiled.byRule.get(rule.id) : undefined;
  const active = override && live(override, now) ? override : undefined;
  const limit = active?.limits?.[region];
  return {
    verdict: "count",
    mode: active?.mode ?? rule.mode,
    modeBy: active?.mode ? active : undefined,
    limit: limit ?? rule.limits[region],
    limitBy: limit ? active : undefined,
  };
}

function matchingIdentityOverrides(compiled: CompiledOverrides, ruleId: number, digests: RequestDigests, now: number): IdentityOverride[] {
  const keys: string[] = [];
  for (const kind of ["api-key", "user-id", "ip"] as const) {
    const digest = digests[kind];
    if (digest) keys.push(`${kind}:${digest}`);
  }
  for (const digest of digests.prefixes.values()) keys.push(`ipv6-prefix:${digest}`);
  const found: IdentityOverride[] = [];
  for (const key of keys) {
    for (const o of compiled.byIdentity.get(key) ?? []) {
      if ((o.rule === undefined || o.rule === ruleId) && live(o, now)) found.push(o);
    }
  }
  return found;
}

/** Rule-specific beats every-rule; then exact identities beat prefixes, longer prefixes shorter. */
function specificity(o: IdentityOverride): number {
  return (o.rule === undefined ? 0 : 1000) + (o.subject.prefixLength ?? 100);
}
