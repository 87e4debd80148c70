import type { ControlPlaneWorkspace } from "./workspace-object.ts";

/**
 * What the control-plane emulator reads of its Worker's environment (wrangler.toml): its own
 * bindings only, so it depends on nothing of the gateway's (src/env.ts joins the services').
 */
export interface ControlPlaneBindings {
  /** One object per workspace. */
  CONTROL_PLANE_WORKSPACES: DurableObjectNamespace<ControlPlaneWorkspace>;
  /** Milliseconds per revision status step (default 500). */
  CONTROL_PLANE_REVISION_STEP_MS?: string;
}
