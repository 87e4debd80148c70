import { Hono } from "hono";
import { effectiveTables } from "../../core/overrides/effective-table.ts";
import type { AdminDeps, AdminEnv } from "../types.ts";

/**
 * `GET /_tollgate/rules`: every rule table as it applies now in this gateway's region (each region
 * is its own gateway, with its own overrides): the published rows with the rule overrides laid
 * over them, from the same copy of the overrides the rate limiter uses.
 */
export function rulesRoutes({ tables, runtime: runtimeOf }: AdminDeps) {
  return new Hono<AdminEnv>().get("/rules", async (c) => {
    const runtime = runtimeOf(c.env);
    const { region } = runtime.settings;
    const compiled = await runtime.overrides();
    return c.json({ region, version: compiled.version, tables: effectiveTables(tables, compiled, region, runtime.now()) });
  });
}
