import type { z } from "zod";
import {
  ANCHORED_KINDS,
  REGIONS,
  RuleFileSchema,
  TIERS,
  type IdentityKind,
  type PublishedLimit,
  type Matcher,
  type Mode,
  type Region,
  type Tier,
} from "./schema.ts";
import { socketRuleProblems, type SocketRule } from "./socket-rules.ts";
import { concurrencyRule, concurrencyRowLabel, concurrencyRuleProblems, type ConcurrencyRule } from "./concurrency-rules.ts";

/** A validated rule, ready to compile. `precedence` is its rank in evaluation order (0 = first). */
export interface Rule {
  readonly id: number;
  readonly name: string;
  readonly category: string;
  readonly tier: Tier;
  readonly matchers: readonly Matcher[];
  readonly identity: IdentityKind;
  readonly limits: Readonly<Record<Region, PublishedLimit>>;
  readonly mode: Mode;
  readonly precedence: number;
}

export interface RuleTable {
  readonly name: string;
  /** Roots the anchored patterns match under: "/" first, then the table's alias roots. */
  readonly roots: readonly string[];
  /** Rules in table (row) order. */
  readonly rules: readonly Rule[];
  /** Rules in evaluation order: specific rows, then defaults, then the catch-all. */
  readonly byPrecedence: readonly Rule[];
  /** Where the upstream opens WebSockets and how their frames count (socket-rules.ts). */
  readonly sockets: readonly SocketRule[];
  /** Caps on what one identity holds open, in table order (concurrency-rules.ts, concurrency.ts). */
  readonly concurrency: readonly ConcurrencyRule[];
}

/** Every problem found in a rule file, each naming the row and the field. */
export class RuleTableError extends Error {
  readonly source: string;
  readonly problems: readonly string[];
  constructor(source: string, problems: readonly string[]) {
    super(`${source}: ${problems.length} problem(s) in the rule table:\n  - ${problems.join("\n  - ")}`);
    this.name = "RuleTableError";
    this.source = source;
    this.problems = problems;
  }
}

const UUID_PLACEHOLDER = "{uuid}";

/**
 * Validates a rule file strictly (like envoy's ratelimit config loader): unknown keys, duplicate
 * ids or names, non-positive limits, non-canonical patterns, unreachable duplicates and a missing
 * catch-all all fail, and every error names the row and the field.
 *
 * @example
 * const table = loadRuleTable(JSON.parse(text), "rules/hosted-api.json");
 */
export function loadRuleTable(data: unknown, source = "rules"): RuleTable {
  const parsed = RuleFileSchema.safeParse(data);
  if (!parsed.success) {
    throw new RuleTableError(
      source,
      parsed.error.issues.map((issue) => describeIssue(issue, data)),
    );
  }
  const file = parsed.data;
  const problems: string[] = [];
  const seenIds = new Map<number, number>();
  const seenNames = new Map<string, number>();
  const seenMatchers = new Map<string, number>();
  let previousId = 0;
  const aliasRoots = file.aliasRoots;

  aliasRoots.forEach((root, index) => {
    const field = `field aliasRoots[${index}]`;
    const why = rootProblem(root);
    if (why) problems.push(`${field}: ${why}`);
    const other = aliasRoots.findIndex((r, i) => i !== index && (r === root || root.startsWith(`${r}/`)));
    if (other !== -1) problems.push(`${field}: "${root}" ${aliasRoots[other] === root ? "is listed twice" : `lies under alias root "${aliasRoots[other]}"`}`);
  });

  file.rules.forEach((rule, index) => {
    const where = rowLabel(index, rule.id, rule.name);
    const firstWithId = seenIds.get(rule.id);
    if (firstWithId !== undefined) {
      problems.push(`${where}, field id: duplicate id ${rule.id} (also at rules[${firstWithId}])`);
    } else if (rule.id < previousId) {
      problems.push(`${where}, field id: ids must follow table order (${rule.id} comes after ${previousId})`);
    }
    seenIds.set(rule.id, index);
    previousId = Math.max(previousId, rule.id);

    const firstWithName = seenNames.get(rule.name);
    if (firstWithName !== undefined) {
      problems.push(`${where}, field name: duplicate name "${rule.name}" (also at rules[${firstWithName}])`);
    }
    seenNames.set(rule.name, index);

    rule.match.forEach((matcher, m) => {
      const field = `match[${m}]`;
      if (rule.tier === "specific" && !matcher.method && !matcher.path) {
        problems.push(`${where}, field ${field}: a specific rule needs a method or a path (an empty matcher would shadow every rule below it)`);
      }
      problems.push(...pathProblems(matcher, aliasRoots).map((why) => `${where}, field ${field}.path.pattern: ${why}`));
      // Same matcher, same identity, same tier: the later row could never count a request.
      const key = JSON.stringify([rule.tier, rule.identity, matcher.method ?? "", matcher.path?.kind ?? "", matcher.path?.pattern ?? ""]);
      const shadowedBy = seenMatchers.get(key);
      if (shadowedBy !== undefined && shadowedBy !== rule.id) {
        problems.push(`${where}, field ${field}: unreachable, row ${shadowedBy} has the same matcher and identity`);
      }
      if (shadowedBy === undefined) seenMatchers.set(key, rule.id);
    });
  });

  const catchAll = file.rules.filter((r) => r.tier === "catch-all");
  if (catchAll.length !== 1) {
    problems.push(`field rules: exactly one rule must have tier "catch-all" (found ${catchAll.length}), so every request meets a rule`);
  } else {
    const only = catchAll[0]!;
    const index = file.rules.indexOf(only);
    if (only.identity !== "ip" || only.match.some((m) => m.method || m.path)) {
      problems.push(`${rowLabel(index, only.id, only.name)}, field match: the catch-all must match every request ([{}]) by identity "ip"`);
    }
  }

  problems.push(...socketRuleProblems(file.sockets, patternProblem));

  problems.push(...concurrencyRuleProblems(file.concurrency, seenIds, seenNames, (matcher) => pathProblems(matcher, aliasRoots)));

  if (problems.length > 0) throw new RuleTableError(source, problems);

  const tierRank = (tier: Tier) => TIERS.indexOf(tier);
  const ordered = [...file.rules].sort((a, b) => tierRank(a.tier) - tierRank(b.tier) || a.id - b.id);
  const rules: Rule[] = file.rules.map((r) => ({
    id: r.id,
    name: r.name,
    category: r.category,
    tier: r.tier,
    matchers: r.match,
    identity: r.identity,
    limits: Object.fromEntries(REGIONS.map((region) => [region, r.limits[region]])) as Record<Region, PublishedLimit>,
    mode: r.mode,
    precedence: ordered.indexOf(r),
  }));
  const byPrecedence = [...rules].sort((a, b) => a.precedence - b.precedence);
  return { name: file.table, roots: ["/", ...aliasRoots], rules, byPrecedence, sockets: file.sockets, concurrency: file.concurrency.map(concurrencyRule) };
}

function rowLabel(index: number, id: unknown, name: unknown): string {
  const idPart = typeof id === "number" ? `row ${id}` : `rules[${index}]`;
  return typeof name === "string" ? `${idPart} ("${name}")` : idPart;
}

/** Turns a zod issue into "row 12 ("runs-query-key"), field limits.eu.count: ..." */
function describeIssue(issue: z.core.$ZodIssue, data: unknown): string {
  const path = issue.path;
  let where = "";
  let fieldPath = path;
  if ((path[0] === "rules" || path[0] === "concurrency") && typeof path[1] === "number") {
    const list = path[0];
    const raw = (data as Partial<Record<typeof list, Array<Record<string, unknown>>>>)[list]?.[path[1]];
    where = (list === "rules" ? rowLabel : concurrencyRowLabel)(path[1], raw?.id, raw?.name) + ", ";
    fieldPath = path.slice(2);
  }
  const field = fieldPath.length === 0 ? (where ? "(the row)" : "(top level)") : formatPath(fieldPath);
  let message = issue.message;
  if (issue.code === "unrecognized_keys") message = `unknown key(s) ${issue.keys.map((k) => `"${k}"`).join(", ")}`;
  if (issue.code === "too_small" && issue.origin === "number") message = `must be a positive integer (${issue.message})`;
  return `${where}field ${field}: ${message}`;
}

function formatPath(path: readonly PropertyKey[]): string {
  return path.map((p, i) => (typeof p === "number" ? `[${p}]` : `${i === 0 ? "" : "."}${String(p)}`)).join("");
}

/** What is wrong with a matcher's path pattern under the table's alias roots, if anything. */
function pathProblems(matcher: Matcher, aliasRoots: readonly string[]): string[] {
  if (!matcher.path) return [];
  const { kind, pattern } = matcher.path;
  const problems: string[] = [];
  const why = patternProblem(kind, pattern);
  if (why) problems.push(why);
  const root = aliasRoots.find((r) => pattern === r || pattern.startsWith(`${r}/`));
  if (root && ANCHORED_KINDS.has(kind)) {
    // Written under an alias root, the pattern would also be repeated below it (/api/v1/api/v1/...).
    problems.push(`"${pattern}" starts with alias root "${root}"; write it from "/" (it matches under "${root}" too)`);
  }
  return problems;
}

/** An alias root is a canonical path of literal segments, other than "/" itself. */
function rootProblem(root: string): string | undefined {
  if (root === "/") return `"/" is always a root; list only the aliases`;
  const why = patternProblem("exact", root);
  if (why) return why;
  if (root.includes("{") || root.includes("}")) return `"${root}" may not hold placeholders`;
  return undefined;
}

/**
 * Patterns are compared with normalized paths, so a pattern that is not itself canonical could
 * never match; `{uuid}` is the only placeholder and only templates may use it.
 */
function patternProblem(kind: string, pattern: string): string | undefined {
  if (!pattern.startsWith("/")) return `"${pattern}" must start with "/"`;
  if (pattern === "/") return `"/" is not a useful ${kind} pattern: use an empty matcher to match everything`;
  const segments = pattern.slice(1).split("/");
  if (segments.some((s) => s === "" || s === "." || s === "..")) {
    return `"${pattern}" is not canonical (empty, "." or ".." segment, or trailing slash)`;
  }
  const placeholders = segments.filter((s) => s.includes("{") || s.includes("}"));
  if (kind === "template") {
    if (placeholders.length === 0) return `template "${pattern}" has no {uuid} placeholder: use kind "exact"`;
    const bad = placeholders.find((s) => s !== UUID_PLACEHOLDER);
    if (bad) return `"${bad}" is not a supported placeholder: only whole-segment {uuid} is`;
  } else if (placeholders.length > 0) {
    return `placeholders such as "${placeholders[0]}" are only allowed in kind "template"`;
  }
  return undefined;
}
