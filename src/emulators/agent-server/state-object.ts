import { DurableObject } from "cloudflare:workers";

/**
 * All agent-server state (assistants and their versions, threads, runs) in one SQLite-backed
 * Durable Object, so concurrent writers are serialized and version numbers never gap or repeat.
 * (To be implemented: see the agent-server issue.)
 */
export class AgentServerState extends DurableObject {
  ping(): string {
    return "agent-server state";
  }
}
