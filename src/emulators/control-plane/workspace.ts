import type { Context } from "hono";
import type { ControlPlaneEnv } from "./auth.ts";

/** The Durable Object holding the request's workspace. */
export function workspaceOf(c: Context<ControlPlaneEnv>) {
  return c.env.CONTROL_PLANE_WORKSPACES.getByName(c.var.workspaceId);
}
