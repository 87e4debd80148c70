import type { ConcurrencyRule } from "./concurrency-rules.ts";
import type { RuleTable } from "./load.ts";
import { matcherMatches } from "./match.ts";
import type { IdentityKind, Matcher } from "./schema.ts";

/** The concurrency rule a request held open meets, and the matcher (under which root) that chose it. */
export interface ConcurrencyMatch {
  readonly rule: ConcurrencyRule;
  readonly matcher: Matcher;
  /** "/" or the alias root the matcher's anchored pattern matched under. */
  readonly root: string;
}

/** What the lookup reads of a request: its method and normalized path, and the identity kind its rate-limit rule counts it by. */
export interface HeldRequestFacts {
  readonly method: string;
  readonly path: string;
  readonly identity: IdentityKind;
}

/** A table's concurrency rules grouped by identity kind, each group in table order. */
type Compiled = Readonly<Record<IdentityKind, readonly ConcurrencyRule[]>>;

const compiled = new WeakMap<RuleTable, Compiled>();

function compile(table: RuleTable): Compiled {
  let byKind = compiled.get(table);
  if (!byKind) {
    const of = (kind: IdentityKind) => table.concurrency.filter((rule) => rule.identity === kind);
    byKind = { "api-key": of("api-key"), "user-ip": of("user-ip"), ip: of("ip") };
    compiled.set(table, byKind);
  }
  return byKind;
}

/**
 * The concurrency rule that caps a request held open (a WebSocket, a stream), if any: the first,
 * in table order, whose identity kind is the one the request's own rate-limit classification chose
 * (a keyed socket is capped per key, a keyless one per address) and one of whose matchers matches
 * its method and path. Matching is the rules' own (match.ts, which the compiled classifier is
 * held to); a table's few concurrency rules are grouped once per table, so a lookup tests only
 * those of the request's identity kind.
 *
 * @example
 * concurrencyRuleFor(ruleTables["agent-server"], { method: "GET", path: `/threads/${id}/stream/events`, identity: "api-key" });
 */
export function concurrencyRuleFor(table: RuleTable, facts: HeldRequestFacts): ConcurrencyMatch | undefined {
  for (const rule of compile(table)[facts.identity]) {
    for (const matcher of rule.matchers) {
      const root = matcherMatches(matcher, facts.method, facts.path, table.roots);
      if (root !== undefined) return { rule, matcher, root };
    }
  }
  return undefined;
}
