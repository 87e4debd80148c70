import { Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import { jsonBody } from "../shared/http.ts";
import { assistantRoutes } from "./assistants/routes.ts";
import { AgentServerConfigError } from "./config.ts";
import type { AgentServerEnv } from "./http.ts";
import { runRoutes } from "./runs/routes.ts";
import { threadRoutes } from "./threads/routes.ts";

/**
 * The agent-server emulator: assistants (with versions), threads, and streamed runs of the
 * deployed graphs (graphs/registry.ts). FastAPI-shaped answers throughout: `{"detail": "..."}`
 * for 4xx, `{"detail": [{type, loc, msg, input}]}` for 422. See docs/agent-server.md.
 *
 * @example
 * const app = createAgentServer();
 * await app.fetch(new Request("http://agent/assistants/agent"), env); // the default assistant
 */
export function createAgentServer() {
  const app = new Hono<AgentServerEnv>();
  app.use("*", jsonBody());
  app.route("/assistants", assistantRoutes);
  app.route("/threads", threadRoutes);
  app.route("/threads", runRoutes);
  app.notFound((c) => c.json({ detail: "Not Found" }, 404));
  app.onError((error, c) => {
    if (error instanceof HTTPException) return error.getResponse();
    if (error instanceof AgentServerConfigError) return c.json({ detail: error.message }, 500);
    console.log(JSON.stringify({ event: "agent_server_error", error: String(error), path: c.req.path }));
    return c.json({ detail: "Internal Server Error" }, 500);
  });
  return app;
}
