import type { AgentServerState } from "./state-object.ts";

/**
 * What the agent-server emulator reads of its Worker's environment (wrangler.toml): its own
 * bindings only: it is a Worker of its own, and nothing of the gateway's reaches it.
 */
export interface AgentServerBindings {
  /** All the emulator's state: one SQLite-backed object. */
  AGENT_SERVER_STATE: DurableObjectNamespace<AgentServerState>;
  /** Pause between the node steps of a run, in ms (default 0). */
  AGENT_SERVER_STEP_DELAY_MS?: string;
}

/** The Hono environment of the agent-server routes. */
export interface AgentServerEnv {
  Bindings: AgentServerBindings;
}
