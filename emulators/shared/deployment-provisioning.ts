/**
 * What the control-plane emulator asks of the agent-server emulator over its service binding (an
 * RPC entrypoint of the agent-server Worker, `DeploymentProvisioning`: no HTTP route, so nothing
 * reaches it through the gateway). docs/deployment-agent-servers.md.
 */
export interface DeploymentProvisioning {
  /**
   * Gives the deployment an agent server of its own, which only `workspaceId`'s callers may use.
   * Idempotent: a deployment already provisioned keeps its state (a new revision does not reset
   * threads and assistants). `keyWorkspace` names the key the workspace admits (by that key's own
   * workspace id), so an `X-Tenant-Id` choosing the workspace is let in with that key only.
   */
  provision(deploymentId: string, workspaceId: string, keyWorkspace?: string): Promise<void>;
  /** Removes the deployment's agent server and all its state; its URL answers 404 from then on. Idempotent. */
  deprovision(deploymentId: string): Promise<void>;
}
