import type { AgentServerStateRpc, DeploymentRegistryRpc } from "./state-rpc.ts";

/**
 * What the agent-server emulator reads of its Worker's environment (wrangler.toml): its own
 * bindings only: it is a Worker of its own, and nothing of the gateway's reaches it.
 */
export interface AgentServerBindings {
  /** The shared agent server's state (one object), and each deployment's own (one per deployment). */
  AGENT_SERVER_STATE: DurableObjectNamespace<AgentServerStateRpc>;
  /** Which deployments have an agent server, and their workspaces (deployments/registry.ts). */
  AGENT_SERVER_DEPLOYMENTS: DurableObjectNamespace<DeploymentRegistryRpc>;
  /** Pause between the node steps of a run, in ms (default 0). */
  AGENT_SERVER_STEP_DELAY_MS?: string;
  /**
   * Never configured: set by the deployment router (deployments/router.ts) on the environment it
   * hands the API, so every store the request reaches is that deployment's (state-access.ts).
   */
  deploymentId?: string;
}

/** The Hono environment of the agent-server routes. */
export interface AgentServerEnv {
  Bindings: AgentServerBindings;
}
