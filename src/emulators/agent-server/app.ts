import { createEmulatorApp } from "../shared/app.ts";
import type { EmulatorEnv } from "../shared/emulator-env.ts";
import { assistantRoutes } from "./assistants/routes.ts";
import { runRoutes } from "./runs/routes.ts";
import { threadRoutes } from "./threads/routes.ts";

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
  const app = createEmulatorApp<EmulatorEnv>("agent_server");
  app.route("/assistants", assistantRoutes);
  app.route("/threads", threadRoutes);
  app.route("/threads", runRoutes);
  return app;
}
