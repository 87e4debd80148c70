import agentServerData from "../../../rules/agent-server.json" with { type: "json" };
import controlPlaneData from "../../../rules/control-plane.json" with { type: "json" };
import { compileClassifier, type Classifier } from "./classify.ts";
import { hostedApiClassifier, hostedApiTable } from "./hosted-api.ts";
import { loadRuleTable, RuleTableError, type RuleTable } from "./load.ts";
import { UPSTREAMS, type UpstreamName } from "./upstreams.ts";

/**
 * One rule table per upstream, each validated by the same strict loader at module load. The
 * published table applies to the hosted API; the control plane and the agent server publish no
 * limits, so their tables hold the published default and catch-all tiers (docs/rules.md, "Limits per
 * upstream"). Rule ids and names are unique across the tables: a counter is named by region, rule
 * id and identity, and a `RateLimit-Policy` by the rule's name, so neither may mean two rules.
 */
export const ruleTables: Readonly<Record<UpstreamName, RuleTable>> = checkedTogether({
  "hosted-api": hostedApiTable,
  "control-plane": loadRuleTable(controlPlaneData, "rules/control-plane.json"),
  "agent-server": loadRuleTable(agentServerData, "rules/agent-server.json"),
});

/** Each table compiled once per isolate. */
export const classifiers: Readonly<Record<UpstreamName, Classifier>> = {
  "hosted-api": hostedApiClassifier,
  "control-plane": compileClassifier(ruleTables["control-plane"]),
  "agent-server": compileClassifier(ruleTables["agent-server"]),
};

/**
 * @throws RuleTableError when a rule id or name (of a rule or a concurrency rule) appears in two tables, naming both.
 */
export function checkedTogether<T extends Record<string, RuleTable>>(tables: T): T {
  const problems: string[] = [];
  const ids = new Map<number, string>();
  const names = new Map<string, string>();
  for (const [table, { rules, concurrency }] of Object.entries(tables)) {
    // Both kinds of row: a concurrency rule's slots and its policy are named by its id and name too.
    for (const rule of [...rules, ...concurrency]) {
      const idOwner = ids.get(rule.id);
      if (idOwner) problems.push(`rule id ${rule.id} is in both ${idOwner} and ${table}`);
      else ids.set(rule.id, table);
      const nameOwner = names.get(rule.name);
      if (nameOwner) problems.push(`rule name "${rule.name}" is in both ${nameOwner} and ${table}`);
      else names.set(rule.name, table);
    }
  }
  if (problems.length > 0) throw new RuleTableError("rules/", problems);
  return tables;
}

/** Every rule of every table, hosted API first. */
export const allRules = Object.values(ruleTables).flatMap((table) => table.rules);

/** The table (and upstream) a rule id belongs to; ids are unique across tables. */
export function tableOfRule(id: number): UpstreamName | undefined {
  for (const name of UPSTREAMS) if (ruleTables[name].rules.some((r) => r.id === id)) return name;
  return undefined;
}
