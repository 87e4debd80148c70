import { Hono } from "hono";
import { gatewayConfig } from "../../gateway/config.ts";
import { currentOverrides } from "../../gateway/overrides.ts";
import { effectiveTables } from "../../overrides/effective-table.ts";
import type { RuleTable } from "../../rules/load.ts";
import type { AdminEnv } from "../types.ts";

/**
 * `GET /_tollgate/rules`: every rule table as it applies now in this gateway's region (each region
 * is its own gateway, with its own overrides): the published rows with the rule overrides laid
 * over them, from the same copy of the overrides the rate limiter uses.
 */
export function rulesRoutes(tables: Readonly<Record<string, RuleTable>>) {
  return new Hono<AdminEnv>().get("/rules", async (c) => {
    const config = gatewayConfig(c.env);
    const compiled = await currentOverrides(c.var.isolate, c.env, config);
    return c.json({ region: config.region, version: compiled.version, tables: effectiveTables(tables, compiled, config.region, c.var.isolate.clock.now()) });
  });
}
