import type { Context } from "hono";
import type { ControlPlaneEnv } from "./auth.ts";

/** The Durable Object holding the request's workspace. */
export function workspaceOf(c: Context<ControlPlaneEnv>) {
  return c.env.CONTROL_PLANE_WORKSPACES.getByName(c.var.workspaceId);
}

// The request's stores, each for one pipelined call (one round trip). Declare them with `using`:
// the stub is disposed when the handler returns, not whenever the garbage collector gets to it
// (workerd warns about stubs collected that way).
export const listenersOf = (c: Context<ControlPlaneEnv>) => workspaceOf(c).listeners();
export const templatesOf = (c: Context<ControlPlaneEnv>) => workspaceOf(c).templates();
export const deploymentsOf = (c: Context<ControlPlaneEnv>) => workspaceOf(c).deployments();
