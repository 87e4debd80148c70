// The rule tables as the gateway will load them: each rules/*.json file through the strict loader,
// then the cross-table check, read from the files (a broken table is a finding, not a crash).
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { loadRuleTable, RuleTableError, type RuleTable } from "../../src/core/rules/load.ts";
import { UPSTREAMS } from "../../src/core/rules/upstreams.ts";

/** The outcome: the rules counted when every table loads, else every problem found. */
export type RuleTablesCheck =
  { readonly ok: true; readonly tables: number; readonly rules: number } | { readonly ok: false; readonly problems: readonly string[] };

/** Loads `<root>/rules/<table>.json` for every table, as src/core/rules/tables.ts does at start-up. */
export async function checkRuleTables(root: string): Promise<RuleTablesCheck> {
  const problems: string[] = [];
  const tables: Record<string, RuleTable> = {};
  for (const name of UPSTREAMS) {
    const source = `rules/${name}.json`;
    try {
      tables[name] = loadRuleTable(JSON.parse(await readFile(join(root, source), "utf8")), source);
    } catch (error) {
      problems.push(...describe(error, source));
    }
  }
  if (problems.length === 0) {
    try {
      // Imported only now: tables.ts loads the checkout's own tables as it is imported, and a
      // broken one must be reported above, file by file, not thrown here.
      const { checkedTogether } = await import("../../src/core/rules/tables.ts");
      checkedTogether(tables);
    } catch (error) {
      problems.push(...describe(error, "rules/"));
    }
  }
  if (problems.length > 0) return { ok: false, problems };
  return { ok: true, tables: UPSTREAMS.length, rules: Object.values(tables).reduce((n, t) => n + t.rules.length, 0) };
}

function describe(error: unknown, source: string): string[] {
  if (error instanceof RuleTableError) return error.problems.map((p) => `${error.source}: ${p}`);
  return [`${source}: ${(error as Error).message}`];
}
