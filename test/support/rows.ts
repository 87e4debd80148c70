// Helpers both test pools use (Node and the Workers runtime): pure, nothing from node: or cloudflare:.
import { hostedApiTable } from "../../src/core/rules/hosted-api.ts";
import type { Rule } from "../../src/core/rules/load.ts";

/** The hosted API's published row `id`; an id the table lacks fails the test where it is named. */
export function publishedRow(id: number): Rule {
  const row = hostedApiTable.rules.find((r) => r.id === id);
  if (!row) throw new Error(`the hosted API table has no row ${id}`);
  return row;
}
