import type { RuleTable } from "../rules/load.ts";
import type { Mode, PublishedLimit, Region } from "../rules/schema.ts";
import type { CompiledOverrides } from "./resolve.ts";

/** One row as it applies now: the published values, and what the rule's override makes of them. */
export interface EffectiveRow {
  readonly id: number;
  readonly name: string;
  readonly category: string;
  readonly tier: string;
  readonly identity: string;
  readonly mode: Mode;
  readonly limit: PublishedLimit;
  readonly published: { readonly mode: Mode; readonly limit: PublishedLimit };
  /** The rule override in force, if any. */
  readonly override?: { readonly id: string; readonly expiresAt?: number; readonly reason: string };
  /** How many identity overrides name this rule (or every rule). */
  readonly identityOverrides: number;
}

export interface EffectiveTable {
  readonly table: string;
  readonly rows: readonly EffectiveRow[];
}

/**
 * The rule tables as they apply in `region` at `now`: the published rows with each rule override
 * laid over them. Identity overrides change single callers, not rows, so a row only counts them.
 */
export function effectiveTables(tables: Readonly<Record<string, RuleTable>>, compiled: CompiledOverrides, region: Region, now: number): EffectiveTable[] {
  const live = compiled.overrides.filter((o) => o.expiresAt === undefined || now < o.expiresAt);
  return Object.values(tables).map((table) => ({
    table: table.name,
    rows: table.rules.map((rule): EffectiveRow => {
      const override = live.find((o) => o.kind === "rule" && o.rule === rule.id);
      const ruleOverride = override?.kind === "rule" ? override : undefined;
      return {
        id: rule.id,
        name: rule.name,
        category: rule.category,
        tier: rule.tier,
        identity: rule.identity,
        mode: ruleOverride?.mode ?? rule.mode,
        limit: ruleOverride?.limits?.[region] ?? rule.limits[region],
        published: { mode: rule.mode, limit: rule.limits[region] },
        ...(ruleOverride && {
          override: { id: ruleOverride.id, reason: ruleOverride.reason, ...(ruleOverride.expiresAt !== undefined && { expiresAt: ruleOverride.expiresAt }) },
        }),
        identityOverrides: live.filter((o) => o.kind === "identity" && (o.rule === undefined || o.rule === rule.id)).length,
      };
    }),
  }));
}
