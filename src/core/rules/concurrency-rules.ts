/*
 * A rule file's `concurrency` rows (docs/counting.md, "Concurrency"): caps on how many matching
 * requests one identity holds open at once. Checked as strictly as the rate-limit rows (load.ts
 * reports these problems with the rest); looked up by concurrency.ts.
 */
import { REGIONS, type ConcurrencyLimit, type ConcurrencyRuleData, type IdentityKind, type Matcher, type Mode, type Region } from "./schema.ts";

/**
 * A validated concurrency rule: at most `limits[region].count` requests matching one of its
 * matchers held open at once per identity of kind `identity`.
 */
export interface ConcurrencyRule {
  readonly id: number;
  readonly name: string;
  readonly category: string;
  readonly matchers: readonly Matcher[];
  readonly identity: IdentityKind;
  readonly limits: Readonly<Record<Region, ConcurrencyLimit>>;
  readonly mode: Mode;
}

/** The row as the gateway uses it. */
export function concurrencyRule(row: ConcurrencyRuleData): ConcurrencyRule {
  return {
    id: row.id,
    name: row.name,
    category: row.category,
    matchers: row.match,
    identity: row.identity,
    limits: Object.fromEntries(REGIONS.map((region) => [region, row.limits[region]])) as Record<Region, ConcurrencyLimit>,
    mode: row.mode,
  };
}

/** "concurrency row 204 ("name")", or its index while the row has no id. */
export function concurrencyRowLabel(index: number, id: unknown, name: unknown): string {
  const idPart = typeof id === "number" ? `concurrency row ${id}` : `concurrency[${index}]`;
  return typeof name === "string" ? `${idPart} ("${name}")` : idPart;
}

/**
 * The concurrency rows' problems, each naming the row and the field: ids and names unique across
 * both kinds of row (`ruleIds`, `ruleNames`: the rate-limit rows', by index; a slot's object and a
 * `RateLimit-Policy` are named by them), ids in table order, patterns as strict as a rule's
 * (`pathProblems`, the loader's), and no row an earlier one with the same matcher and identity
 * makes unreachable.
 */
export function concurrencyRuleProblems(
  rows: readonly ConcurrencyRuleData[],
  ruleIds: ReadonlyMap<number, number>,
  ruleNames: ReadonlyMap<string, number>,
  pathProblems: (matcher: Matcher) => string[],
): string[] {
  const problems: string[] = [];
  const seenIds = new Map<number, number>();
  const seenNames = new Map<string, number>();
  const seenMatchers = new Map<string, number>();
  let previousId = 0;
  rows.forEach((row, index) => {
    const where = concurrencyRowLabel(index, row.id, row.name);
    const otherId = seenIds.get(row.id);
    if (otherId !== undefined) problems.push(`${where}, field id: duplicate id ${row.id} (also at concurrency[${otherId}])`);
    else if (ruleIds.has(row.id)) problems.push(`${where}, field id: duplicate id ${row.id} (also at rules[${ruleIds.get(row.id)}])`);
    else if (row.id < previousId) problems.push(`${where}, field id: ids must follow table order (${row.id} comes after ${previousId})`);
    seenIds.set(row.id, index);
    previousId = Math.max(previousId, row.id);
    const otherName = seenNames.get(row.name);
    if (otherName !== undefined) problems.push(`${where}, field name: duplicate name "${row.name}" (also at concurrency[${otherName}])`);
    else if (ruleNames.has(row.name)) problems.push(`${where}, field name: duplicate name "${row.name}" (also at rules[${ruleNames.get(row.name)}])`);
    seenNames.set(row.name, index);
    row.match.forEach((matcher, m) => {
      const field = `match[${m}]`;
      problems.push(...pathProblems(matcher).map((why) => `${where}, field ${field}.path.pattern: ${why}`));
      const key = JSON.stringify([row.identity, matcher.method ?? "", matcher.path?.kind ?? "", matcher.path?.pattern ?? ""]);
      const shadowedBy = seenMatchers.get(key);
      if (shadowedBy !== undefined && shadowedBy !== row.id) {
        problems.push(`${where}, field ${field}: unreachable, concurrency row ${shadowedBy} has the same matcher and identity`);
      }
      if (shadowedBy === undefined) seenMatchers.set(key, row.id);
    });
  });
  return problems;
}
