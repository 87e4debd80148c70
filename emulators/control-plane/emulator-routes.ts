import { Hono, type Context } from "hono";
import { z } from "zod";
import { uuid } from "../shared/pydantic/uuid.ts";
import { validate } from "../shared/validate.ts";
import type { ControlPlaneEnv } from "./auth.ts";
import { integrationsOf } from "./integrations/routes.ts";
import { InstallationsBody, KindPath } from "./integrations/schema.ts";
import { PLANS } from "./plans.ts";

// The same UUIDs the X-Tenant-Id header accepts (auth.ts), in the spelling auth.ts names objects by.
const WorkspacePath = z.object({ workspace_id: uuid() });
const PlanBody = z.object({ plan: z.enum(PLANS) });
/** At most a year at a time: enough for any revision's walk, far from overflowing a timestamp. */
const ClockBody = z.object({
  advance_ms: z
    .int()
    .min(0)
    .max(366 * 86_400_000),
});

/** The settings of the workspace named in the path (not the caller's); declare with `using`. */
const settingsOf = (c: Context<ControlPlaneEnv>, workspaceId: string) => c.env.CONTROL_PLANE_WORKSPACES.getByName(workspaceId).settings();

/**
 * Emulator-only switches under `/v2/_emulator` (no real-API counterpart):
 * `PUT /workspaces/{workspace_id}` `{"plan": ...}` sets a workspace's plan, creating the workspace
 * if needed; `GET /workspaces/{workspace_id}` reads it. The target is the path's workspace, not
 * the caller's, so a test can prepare any workspace before using it.
 * `PUT /workspaces/{workspace_id}/integrations/{kind}` (`github` or `forge-github`) with a list of
 * installations `[{id, installation_id, name, repositories: [{id, name, owner?, url?, default_branch?}]}]`
 * replaces that listing of `/v1/integrations/...` (seeded until set: integrations/seed.ts);
 * `GET` reads it.
 * `POST /workspaces/{workspace_id}/clock` `{"advance_ms": ...}` moves that workspace's deployment
 * clock on: revisions take the statuses that time brings (and deployed ones their agent server)
 * before it answers `{"now": ...}`, the clock's time, so a client sees a deployment through its
 * statuses without waiting CONTROL_PLANE_REVISION_STEP_MS for each.
 *
 * @example
 * PUT /v2/_emulator/workspaces/5b0c...  {"plan": "plus"}  -> 200 {"id": "5b0c...", "plan": "plus", "created_at": "..."}
 */
export const emulatorRoutes = new Hono<ControlPlaneEnv>()
  .put("/workspaces/:workspace_id", validate("param", WorkspacePath), validate("json", PlanBody), async (c) => {
    const { workspace_id } = c.req.valid("param");
    using settings = settingsOf(c, workspace_id);
    const workspace = await settings.setPlan(workspace_id, c.req.valid("json").plan);
    return c.json(workspace, 200);
  })
  .get("/workspaces/:workspace_id", validate("param", WorkspacePath), async (c) => {
    const { workspace_id } = c.req.valid("param");
    using settings = settingsOf(c, workspace_id);
    const workspace = await settings.get(workspace_id);
    return c.json(workspace, 200);
  })
  .put(
    "/workspaces/:workspace_id/integrations/:kind",
    validate("param", WorkspacePath.extend(KindPath.shape)),
    validate("json", InstallationsBody),
    async (c) => {
      const { workspace_id, kind } = c.req.valid("param");
      using integrations = integrationsOf(c, workspace_id);
      return c.json(await integrations.replace(kind, c.req.valid("json")), 200);
    },
  )
  .post("/workspaces/:workspace_id/clock", validate("param", WorkspacePath), validate("json", ClockBody), async (c) => {
    const { workspace_id } = c.req.valid("param");
    using deployments = c.env.CONTROL_PLANE_WORKSPACES.getByName(workspace_id).deployments();
    const now = await deployments.advanceClock(c.req.valid("json").advance_ms);
    return c.json({ now: new Date(now).toISOString() }, 200);
  })
  .get("/workspaces/:workspace_id/integrations/:kind", validate("param", WorkspacePath.extend(KindPath.shape)), async (c) => {
    const { workspace_id, kind } = c.req.valid("param");
    using integrations = integrationsOf(c, workspace_id);
    return c.json(await integrations.installations(kind), 200);
  });
