import { WorkerEntrypoint } from "cloudflare:workers";
import type { AgentServerBindings } from "./env.ts";
import { createAgentServer } from "./app.ts";

const app = createAgentServer();

/** The agent server as a service: bound to the gateway as AGENT_SERVER (wrangler.toml). */
export class AgentServerEmulator extends WorkerEntrypoint<AgentServerBindings> {
  override fetch(request: Request): Response | Promise<Response> {
    return app.fetch(request, this.env, this.ctx);
  }
}
