import { Hono } from "hono";
import { gatewaySettings } from "../../gateway/settings.ts";
import { currentOverrides } from "../../gateway/overrides.ts";
import { effectiveTables } from "../../core/overrides/effective-table.ts";
import type { RuleTable } from "../../core/rules/load.ts";
import type { AdminEnv } from "../types.ts";

/**
 * `GET /_tollgate/rules`: every rule table as it applies now in this gateway's region (each region
 * is its own gateway, with its own overrides): the published rows with the rule overrides laid
 * over them, from the same copy of the overrides the rate limiter uses.
 */
export function rulesRoutes(tables: Readonly<Record<string, RuleTable>>) {
  return new Hono<AdminEnv>().get("/rules", async (c) => {
    const settings = gatewaySettings(c.env);
    const compiled = await currentOverrides(c.var.isolate, c.env, settings);
    return c.json({ region: settings.region, version: compiled.version, tables: effectiveTables(tables, compiled, settings.region, c.var.isolate.clock.now()) });
  });
}
