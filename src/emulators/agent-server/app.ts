import { Hono } from "hono";
import type { Env } from "../../env.ts";

/** The agent-server emulator (to be implemented: see the agent-server issue). */
export function createAgentServer() {
  const app = new Hono<{ Bindings: Env }>();
  app.notFound((c) => c.json({ detail: "Not Found" }, 404));
  return app;
}
