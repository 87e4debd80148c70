import type { Rule, RuleTable } from "./load.ts";
import { ANCHORED_KINDS, type Matcher } from "./schema.ts";
import { identityFor } from "./identity.ts";
import { isUuid, methodMatches } from "./match.ts";
import { pathSegments, type Identity, type RequestFacts } from "./request-facts.ts";

/** The rule that counts a request, the matcher that selected it (and under which root), and whose counter it is. */
export interface Classification {
  readonly rule: Rule;
  readonly matcher: Matcher;
  /** "/" or the alias root the matcher's anchored pattern matched under. */
  readonly root: string;
  readonly identity: Identity;
}

export interface Classifier {
  readonly table: RuleTable;
  classify(facts: RequestFacts): Classification;
}

interface Entry {
  readonly rule: Rule;
  readonly matcher: Matcher;
  readonly root: string;
  /** Position of (matcher, root) within its rule: the first matching one is reported, as the reference does. */
  readonly order: number;
  /** Pattern segments, for contains/suffix verification. */
  readonly segments: readonly string[];
}

/** A segment trie for exact, prefix and template patterns; `{uuid}` is a wildcard edge. */
interface TrieNode {
  readonly children: Map<string, TrieNode>;
  uuidChild?: TrieNode;
  /** Prefix patterns ending here: they match this path and everything below it. */
  readonly prefix: Entry[];
  /** Exact and template patterns ending here. */
  readonly exact: Entry[];
}

const newNode = (): TrieNode => ({ children: new Map(), prefix: [], exact: [] });

/**
 * Compiles a rule table once (per isolate) into indexes, so classifying a request looks up a few
 * map entries per path segment instead of testing every rule: a trie for exact/prefix/template
 * patterns, maps keyed by a pattern's first (contains) or last (suffix) segment, a map for
 * method-only matchers, and the list of match-anything matchers. The candidates found are then
 * filtered by method and identity and the one with the lowest precedence wins.
 */
export function compileClassifier(table: RuleTable): Classifier {
  const trie = newNode();
  const contains = new Map<string, Entry[]>();
  const suffix = new Map<string, Entry[]>();
  const methodOnly: Entry[] = [];
  const anything: Entry[] = [];

  const push = <K>(map: Map<K, Entry[]>, key: K, entry: Entry) => {
    const list = map.get(key);
    if (list) list.push(entry);
    else map.set(key, [entry]);
  };

  const roots = table.roots;
  for (const rule of table.byPrecedence) {
    for (const [index, matcher] of rule.matchers.entries()) {
      const segments = matcher.path ? pathSegments(matcher.path.pattern) : [];
      const entry: Entry = { rule, matcher, root: "/", order: index * roots.length, segments };
      if (!matcher.path) {
        (matcher.method ? methodOnly : anything).push(entry);
        continue;
      }
      if (ANCHORED_KINDS.has(matcher.path.kind)) {
        // Anchored patterns are planted once per root: /runs/query and /api/v1/runs/query.
        roots.forEach((base, r) => {
          let node = trie;
          for (const segment of [...pathSegments(base), ...segments]) {
            if (segment === "{uuid}") node = node.uuidChild ??= newNode();
            else {
              let next = node.children.get(segment);
              if (!next) node.children.set(segment, (next = newNode()));
              node = next;
            }
          }
          const planted = { ...entry, root: base, order: entry.order + r };
          (matcher.path!.kind === "prefix" ? node.prefix : node.exact).push(planted);
        });
      } else if (matcher.path.kind === "contains") {
        push(contains, segments[0]!, entry);
      } else {
        push(suffix, segments[segments.length - 1]!, entry);
      }
    }
  }

  function classify(facts: RequestFacts): Classification {
    const segments = pathSegments(facts.path);
    let best: (Classification & { order: number }) | undefined;
    const consider = (entry: Entry) => {
      if (best && (best.rule.precedence < entry.rule.precedence || (best.rule === entry.rule && best.order < entry.order))) return;
      if (!methodMatches(entry.matcher.method, facts.method)) return;
      const identity = identityFor(entry.rule.identity, facts);
      if (identity) best = { rule: entry.rule, matcher: entry.matcher, root: entry.root, identity, order: entry.order };
    };

    walk(trie, segments, 0, consider);
    for (let i = 0; i < segments.length; i++) {
      for (const entry of contains.get(segments[i]!) ?? []) {
        if (segmentsAt(segments, i, entry.segments)) consider(entry);
      }
    }
    const last = segments[segments.length - 1];
    if (last !== undefined) {
      for (const entry of suffix.get(last) ?? []) {
        if (segmentsAt(segments, segments.length - entry.segments.length, entry.segments)) consider(entry);
      }
    }
    methodOnly.forEach(consider);
    anything.forEach(consider);

    // The loader guarantees a catch-all by IP, whose identity is always present.
    if (!best) throw new Error(`rule table "${table.name}" has no rule for ${facts.method} ${facts.path}`);
    return { rule: best.rule, matcher: best.matcher, root: best.root, identity: best.identity };
  }

  return { table, classify };
}

function walk(node: TrieNode, segments: readonly string[], depth: number, visit: (entry: Entry) => void): void {
  node.prefix.forEach(visit);
  if (depth === segments.length) {
    node.exact.forEach(visit);
    return;
  }
  const segment = segments[depth]!;
  const child = node.children.get(segment);
  if (child) walk(child, segments, depth + 1, visit);
  if (node.uuidChild && isUuid(segment)) walk(node.uuidChild, segments, depth + 1, visit);
}

function segmentsAt(path: readonly string[], offset: number, want: readonly string[]): boolean {
  if (offset < 0 || offset + want.length > path.length) return false;
  for (let i = 0; i < want.length; i++) if (path[offset + i] !== want[i]) return false;
  return true;
}
