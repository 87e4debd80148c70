import { createEmulatorApp } from "../shared/app.ts";
import type { AgentServerEnv } from "./env.ts";
import { assistantRoutes } from "./assistants/routes.ts";
import { runRoutes } from "./runs/routes.ts";
import { statelessRunRoutes } from "./runs/stateless-routes.ts";
import { threadStateRoutes } from "./threads/state-routes.ts";
import { threadRoutes } from "./threads/routes.ts";
import { assistantGraphRoutes } from "./assistants/graph-routes.ts";
import { cronRoutes, threadCronRoutes } from "./crons/routes.ts";
import { storeRoutes } from "./store/routes.ts";
import { systemRoutes } from "./system/routes.ts";
import { a2aRoutes } from "./protocols/a2a/routes.ts";
import { mcpRoutes } from "./protocols/mcp/routes.ts";
import { threadSearchRoutes } from "./threads/search-routes.ts";
import { protocolRoutes } from "./protocols/v2/routes.ts";

/**
 * The agent-server emulator: assistants (with versions), threads, and streamed runs of the
 * deployed graphs (graphs/registry.ts). FastAPI-shaped answers throughout (the shared emulator
 * app): `{"detail": "..."}` for 4xx, `{"detail": [{type, loc, msg, input}]}` for 422. See
 * docs/agent-server.md.
 *
 * @example
 * const app = createAgentServer();
 * await app.fetch(new Request("http://agent/assistants/agent"), env); // the default assistant
 */
export function createAgentServer() {
  const app = createEmulatorApp<AgentServerEnv>("agent_server");
  app.route("/assistants", assistantRoutes);
  app.route("/threads", threadRoutes);
  app.route("/threads", runRoutes);
  app.route("/threads", threadStateRoutes);
  app.route("/runs", statelessRunRoutes);
  app.route("/assistants", assistantGraphRoutes);
  app.route("/threads", threadSearchRoutes);
  app.route("/threads", threadCronRoutes);
  app.route("/threads", protocolRoutes);
  app.route("/runs/crons", cronRoutes);
  app.route("/store", storeRoutes);
  app.route("/", mcpRoutes);
  app.route("/", a2aRoutes);
  app.route("/", systemRoutes);
  return app;
}
