import { Hono } from "hono";
import type { AgentServerEnv } from "../env.ts";
import { runQueueOf } from "../state-object.ts";
import { serverInfo } from "./info.ts";
import { jsonMetrics, PROMETHEUS_CONTENT_TYPE, prometheusMetrics } from "./metrics.ts";
import { notEmulated } from "./not-emulated.ts";

/**
 * The system endpoints (/info, /ok, /metrics) and the protocols answered with a 501 (A2A, MCP).
 * Query parameters are read as the real server reads them: leniently (`check_db` other than 0 or
 * empty checks the state object; an unknown `format` is Prometheus).
 */
export const systemRoutes = new Hono<AgentServerEnv>()
  .get("/info", (c) => c.json(serverInfo()))
  .get("/ok", async (c) => {
    const checkDb = c.req.query("check_db") ?? "0";
    if (checkDb !== "0" && checkDb !== "") {
      using queue = runQueueOf(c.env);
      await queue.ping();
    }
    return c.json({ ok: true });
  })
  .get("/metrics", async (c) => {
    using queue = runQueueOf(c.env);
    const stats = await queue.stats();
    if (c.req.query("format") === "json") return c.json(jsonMetrics(stats));
    return c.body(prometheusMetrics(stats), 200, { "content-type": PROMETHEUS_CONTENT_TYPE });
  })
  .post("/a2a/:assistant_id", (c) => notEmulated(c, "a2a"))
  // The document writes the path `/mcp/`; the gateway drops trailing slashes, so both are served.
  .on(["GET", "POST", "DELETE"], ["/mcp", "/mcp/"], (c) => notEmulated(c, "mcp"));
