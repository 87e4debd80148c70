import { WorkerEntrypoint } from "cloudflare:workers";
import type { DeploymentProvisioning as Provisioning } from "../../shared/deployment-provisioning.ts";
import type { AgentServerBindings } from "../env.ts";
import { deploymentObjectName, registryOf, RETIRED } from "../state-access.ts";

/**
 * The control-plane emulator's way in (its `DEPLOYMENT_AGENT_SERVERS` service binding names this
 * entrypoint): RPC only, no HTTP route, so no client reaches it, through the gateway or not. The
 * default entrypoint (the API) is what the gateway's AGENT_SERVER binding calls.
 */
export class DeploymentProvisioning extends WorkerEntrypoint<AgentServerBindings> implements Provisioning {
  async provision(deploymentId: string, workspaceId: string, keyWorkspace?: string): Promise<void> {
    const registry = registryOf(this.env);
    await registry.provision(deploymentId, workspaceId, keyWorkspace);
  }

  async deprovision(deploymentId: string): Promise<void> {
    // The registry first: from here on the URL answers 404, so nothing writes to the state emptied next.
    const registry = registryOf(this.env);
    await registry.deprovision(deploymentId);
    const state = this.env.AGENT_SERVER_STATE.getByName(deploymentObjectName(deploymentId));
    // The object resets once emptied, which ends this call with its reason; any other failure is one.
    await state.retire().catch((error: unknown) => {
      if (!String(error).includes(RETIRED)) throw error;
    });
  }
}
