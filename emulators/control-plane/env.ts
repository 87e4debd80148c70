import type { DeploymentProvisioning } from "../shared/deployment-provisioning.ts";
import type { ControlPlaneWorkspaceRpc } from "./workspace-rpc.ts";

/**
 * What the control-plane emulator reads of its Worker's environment (wrangler.toml): its own
 * bindings only: it is a Worker of its own, and nothing of the gateway's reaches it.
 */
export interface ControlPlaneBindings {
  /** One object per workspace. */
  CONTROL_PLANE_WORKSPACES: DurableObjectNamespace<ControlPlaneWorkspaceRpc>;
  /** Milliseconds per revision status step (default 500). */
  CONTROL_PLANE_REVISION_STEP_MS?: string;
  /**
   * The agent-server emulator's provisioning entrypoint: each deployed deployment gets an agent
   * server there. Added by the local runs (tools/emulator-workers.ts), not by wrangler.toml: a
   * control plane deployed alone has none, and its deployments' `custom_url` stays null.
   */
  DEPLOYMENT_AGENT_SERVERS?: DeploymentProvisioning;
  /** Where deployments' agent servers answer, with `{deployment_id}` (deployments/agent-server-url.ts). */
  DEPLOYMENT_URL_TEMPLATE?: string;
}
