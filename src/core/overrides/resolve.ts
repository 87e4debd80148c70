import type { Rule } from "../rules/load.ts";
import type { Mode, PublishedLimit, Region } from "../rules/schema.ts";
import { FORGEABLE, noLaxer, withinBounds } from "./bounds.ts";
import { appliesOn } from "./scope.ts";
import type { DigestNeeds, RequestDigests } from "./subject.ts";
import type { OverridesSnapshot, IdentityOverride, Override, RuleOverride, SubjectKind } from "./types.ts";

/** A snapshot indexed for the request path: a rule's override by id, identity overrides by digest. */
export interface CompiledOverrides {
  readonly version: number;
  readonly overrides: readonly Override[];
  readonly byRule: ReadonlyMap<number, RuleOverride>;
  /** Keyed `<kind>:<digest>`. */
  readonly byIdentity: ReadonlyMap<string, readonly IdentityOverride[]>;
  readonly needs: DigestNeeds;
}

/**
 * Indexes a snapshot once per fetch, so a request does a few map lookups. Each override is taken
 * within the bounds (bounds.ts): the store brings stored ones within them when it loads them, and
 * a copy from elsewhere (a data center's copy of an older store's answer) is held to them too.
 */
export function compileOverrides(snapshot: OverridesSnapshot): CompiledOverrides {
  const byRule = new Map<number, RuleOverride>();
  const byIdentity = new Map<string, IdentityOverride[]>();
  const kinds = new Set<SubjectKind>();
  const prefixLengths = new Set<number>();
  const overrides = snapshot.overrides.flatMap((o) => withinBounds(o) ?? []);
  for (const override of overrides) {
    if (override.kind === "rule") {
      byRule.set(override.rule, override);
      continue;
    }
    const key = `${override.subject.kind}:${override.subject.digest}`;
    byIdentity.set(key, [...(byIdentity.get(key) ?? []), override]);
    kinds.add(override.subject.kind);
    if (override.subject.prefixLength !== undefined) prefixLengths.add(override.subject.prefixLength);
  }
  return { version: snapshot.version, overrides, byRule, byIdentity, needs: { kinds, prefixLengths: [...prefixLengths] } };
}

/** What applies to one request on one rule, after every override (docs/operating.md). */
export type Effective =
  | { readonly treatment: "block" | "exempt"; readonly by: IdentityOverride }
  | {
      readonly treatment: "count";
      readonly limit: PublishedLimit;
      readonly mode: Mode;
      /** The override the limit comes from, if not the published table. */
      readonly limitBy?: Override;
      /** The rule override the mode comes from, if any. */
      readonly modeBy?: RuleOverride;
    };

/** The word the admin API, the decision log and the metrics say for each treatment (docs/glossary.md, "treatment"). */
export const TREATMENT_WORDS = { count: "counted", block: "blocked", exempt: "exempt" } as const satisfies Record<Effective["treatment"], string>;

const live = (o: Override, now: number) => o.expiresAt === undefined || now < o.expiresAt;

/**
 * The effective treatment and limit for a request on `rule` in `region`, in order of precedence:
 * blocked > exempt > identity limit > rule override > published. Only identity overrides whose
 * subject the rule counts take part (scope.ts); a `user-id` subject (the client's own header) may
 * only lower the limit it meets, never exempt. Among identity limits the most
 * specific wins: one naming the rule over one for every rule, an exact identity over a prefix, a
 * longer prefix over a shorter. Expired overrides are skipped here, on every request, so an
 * expiry takes effect on time whatever the age of the cached snapshot.
 */
export function resolve(compiled: CompiledOverrides, rule: Rule, region: Region, digests: RequestDigests, now: number): Effective {
  const identity = compiled.byIdentity.size > 0 ? matchingIdentityOverrides(compiled, rule, digests, now) : [];
  const block = identity.find((o) => o.action === "block");
  if (block) return { treatment: "block", by: block };
  // A subject the client names itself (FORGEABLE) never exempts: the store refuses such an
  // exemption, and one stored before that rule is skipped here too.
  const exempt = identity.find((o) => o.action === "exempt" && !FORGEABLE.has(o.subject.kind));
  if (exempt) return { treatment: "exempt", by: exempt };

  const ruleLevel = ruleEffective(compiled, rule, region, now);
  const identityLimit = identity
    .filter((o) => o.action === "limit" && o.limits?.[region] && (!FORGEABLE.has(o.subject.kind) || noLaxer(o.limits[region]!, ruleLevel.limit)))
    .sort((a, b) => specificity(b) - specificity(a))[0];
  return identityLimit ? { ...ruleLevel, limit: identityLimit.limits![region]!, limitBy: identityLimit } : ruleLevel;
}

/** The rule as it applies to everyone: its override's mode and limit, else the published ones. */
export function ruleEffective(compiled: CompiledOverrides, rule: Rule, region: Region, now: number): Extract<Effective, { treatment: "count" }> {
  const override = compiled.byRule.size > 0 ? compiled.byRule.get(rule.id) : undefined;
  const active = override && live(override, now) ? override : undefined;
  const limit = active?.limits?.[region];
  return {
    treatment: "count",
    mode: active?.mode ?? rule.mode,
    modeBy: active?.mode ? active : undefined,
    limit: limit ?? rule.limits[region],
    limitBy: limit ? active : undefined,
  };
}

/** The live identity overrides naming this request's identities that apply on `rule` (scope.ts). */
function matchingIdentityOverrides(compiled: CompiledOverrides, rule: Rule, digests: RequestDigests, now: number): IdentityOverride[] {
  const keys: string[] = [];
  for (const kind of ["api-key", "user-ip", "user-id", "ip"] as const) {
    const digest = digests[kind];
    if (digest) keys.push(`${kind}:${digest}`);
  }
  for (const digest of digests.prefixes.values()) keys.push(`ipv6-prefix:${digest}`);
  const found: IdentityOverride[] = [];
  for (const key of keys) {
    for (const o of compiled.byIdentity.get(key) ?? []) {
      if ((o.rule === undefined || o.rule === rule.id) && live(o, now) && appliesOn(o, rule.identity)) found.push(o);
    }
  }
  return found;
}

/** Rule-specific beats every-rule; then exact identities beat prefixes, longer prefixes shorter. */
function specificity(o: IdentityOverride): number {
  return (o.rule === undefined ? 0 : 1000) + (o.subject.prefixLength ?? 100);
}
