import { Hono } from "hono";
import { notFound } from "../auth.ts";
import { parseOverrideRequest } from "../../core/overrides/request.ts";
import { jsonBody } from "../body.ts";
import { GatewayError } from "../../http/gateway-error.ts";
import type { AdminDeps, AdminEnv } from "../types.ts";

/**
 * Overrides at runtime (docs/operating.md):
 * - `GET /_tollgate/overrides`: the active ones;
 * - `POST /_tollgate/overrides`: add one (or replace the one with the same target): 201, or 422
 *   naming the field, with nothing changed (within the bounds of src/core/overrides/bounds.ts, on the
 *   rules that count its identity: src/core/overrides/scope.ts);
 * - `DELETE /_tollgate/overrides/{id}`: end one before its expiry;
 * - `GET /_tollgate/audit[?limit=N&before=SEQ]`: every change, newest first.
 * A change is applied by this isolate at once, by every other within OVERRIDES_REFRESH_MS.
 */
export function overrideRoutes({ tables, runtime: runtimeOf }: AdminDeps) {
  return new Hono<AdminEnv>()
    .get("/overrides", async (c) => {
      const runtime = runtimeOf(c.env);
      const snapshot = await runtime.overridesStore().snapshot();
      const now = runtime.now();
      return c.json({ version: snapshot.version, overrides: snapshot.overrides.filter((o) => o.expiresAt === undefined || now < o.expiresAt) });
    })
    .post("/overrides", async (c) => {
      const runtime = runtimeOf(c.env);
      const { settings } = runtime;
      const parsed = parseOverrideRequest(await jsonBody(c), tables, settings.hmacSecret);
      if (!parsed.ok) throw new GatewayError("validation", parsed.detail);
      const startedAt = runtime.now();
      const result = await runtime.overridesStore().set(parsed.change, c.var.actor);
      if (!result.ok) throw new GatewayError("validation", result.detail);
      await runtime.adoptOverrides(result.snapshot, startedAt);
      log({ event: "override_set", region: settings.region, id: result.override.id, actor: c.var.actor, replaced: result.previous?.id });
      return c.json({ override: result.override, previous: result.previous ?? null }, 201);
    })
    .delete("/overrides/:id", async (c) => {
      const runtime = runtimeOf(c.env);
      const { settings } = runtime;
      const startedAt = runtime.now();
      const result = await runtime.overridesStore().end(c.req.param("id"), c.var.actor);
      if (!result.ok) throw notFound();
      await runtime.adoptOverrides(result.snapshot, startedAt);
      log({ event: "override_ended", region: settings.region, id: result.ended.id, actor: c.var.actor });
      return c.json({ ended: result.ended });
    })
    .get("/audit", async (c) => {
      const limit = Number(c.req.query("limit") ?? 100);
      const before = c.req.query("before");
      if (!Number.isInteger(limit) || limit < 1 || limit > 1000 || (before !== undefined && !/^\d+$/.test(before))) {
        throw new GatewayError("validation", [{ loc: ["query"], msg: "limit is 1..1000 and before a sequence number", type: "value_error" }]);
      }
      const entries = await runtimeOf(c.env)
        .overridesStore()
        .audit(limit, before === undefined ? undefined : Number(before));
      return c.json({ entries });
    });
}

/** Changes are logged with the token's name and the override's id; the override holds digests only. */
function log(fields: Record<string, unknown>): void {
  console.log(JSON.stringify(fields));
}
