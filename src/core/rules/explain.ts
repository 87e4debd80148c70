import type { Rule, RuleTable } from "./load.ts";
import type { Matcher } from "./schema.ts";
import type { Classification } from "./classify.ts";
import { identityFor } from "./identity.ts";
import { matcherMatches } from "./match.ts";
import type { RequestFacts } from "./request-facts.ts";

export type Candidacy =
  /** this rule counts the request */
  | "selected"
  /** no matcher of the rule matches method and path */
  | "no-match"
  /** a matcher matches but the request lacks the rule's identity header */
  | "no-identity"
  /** matches with identity, but a rule of higher precedence was selected */
  | "outranked";

export interface RuleReading {
  readonly rule: Rule;
  readonly outcome: Candidacy;
  /** The first matcher that matched, when one did, and the root it matched under. */
  readonly matcher?: Matcher;
  readonly root?: string;
}

export interface Explanation {
  readonly classification: Classification;
  /** What each rule made of the request, in precedence order. */
  readonly readings: readonly RuleReading[];
}

/**
 * Evaluates every rule the slow, obvious way (no index), in precedence order, and says what each
 * one made of the request. It is both the `explain` command's engine and the reference model the
 * compiled classifier is tested against.
 */
export function explainRequest(table: RuleTable, facts: RequestFacts): Explanation {
  let classification: Classification | undefined;
  const readings = table.byPrecedence.map((rule): RuleReading => {
    let root: string | undefined;
    const matcher = rule.matchers.find((m) => (root = matcherMatches(m, facts.method, facts.path, table.roots)) !== undefined);
    if (!matcher || root === undefined) return { rule, outcome: "no-match" };
    const identity = identityFor(rule.identity, facts);
    if (!identity) return { rule, outcome: "no-identity", matcher, root };
    if (classification) return { rule, outcome: "outranked", matcher, root };
    classification = { rule, matcher, root, identity };
    return { rule, outcome: "selected", matcher, root };
  });
  if (!classification) throw new Error(`rule table "${table.name}" has no rule for ${facts.method} ${facts.path}`);
  return { classification, readings };
}
