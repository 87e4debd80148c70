import type { ControlPlaneWorkspace } from "./workspace-object.ts";

/**
 * What the control-plane emulator reads of its Worker's environment (wrangler.toml): its own
 * bindings only: it is a Worker of its own, and nothing of the gateway's reaches it.
 */
export interface ControlPlaneBindings {
  /** One object per workspace. */
  CONTROL_PLANE_WORKSPACES: DurableObjectNamespace<ControlPlaneWorkspace>;
  /** Milliseconds per revision status step (default 500). */
  CONTROL_PLANE_REVISION_STEP_MS?: string;
}
