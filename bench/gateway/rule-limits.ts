// Pure: what the bench needs to know of a published row (its name and US limit), read from the
// rule table as data, so no number in the bench restates the table.
import table from "../../rules/hosted-api.json" with { type: "json" };

export interface RowLimit {
  readonly name: string;
  readonly count: number;
  /** Seconds, as published. */
  readonly interval: number;
}

/** The row's name and its US limit (the bench runs the gateway's `us` environment). */
export function usLimit(row: number): RowLimit {
  const rule = table.rules.find((r) => r.id === row);
  if (!rule) throw new Error(`row ${row} is not in rules/hosted-api.json`);
  return { name: rule.name, count: rule.limits.us.count, interval: rule.limits.us.interval };
}
