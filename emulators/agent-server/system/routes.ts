import { Hono } from "hono";
import { z } from "zod";
import { queryIntegerChoice } from "../../shared/pydantic/query.ts";
import { validate } from "../../shared/validate.ts";
import type { AgentServerEnv } from "../env.ts";
import { runQueueOf } from "../state-access.ts";
import { API_DOCUMENT, DOCS_PAGE } from "./docs.ts";
import { serverInfo } from "./info.ts";
import { jsonMetrics, PROMETHEUS_CONTENT_TYPE, prometheusMetrics } from "./metrics.ts";

/** `/ok?check_db=`: 0 or 1, as the document's integer enum (pydantic's `Literal[0, 1]`). */
const OkQuery = z.object({ check_db: queryIntegerChoice([0, 1]) });

/** `/metrics?format=`: `prometheus` (the default) or `json`; anything else is FastAPI's 422. */
const MetricsQuery = z.object({ format: z.enum(["prometheus", "json"]).default("prometheus") });

/**
 * The system endpoints (/info, /ok, /metrics, and /docs with the /openapi.json it reads). MCP and
 * A2A are served by ../protocols/.
 * Query parameters are held to the document's schemas, as FastAPI holds them (422 otherwise).
 */
export const systemRoutes = new Hono<AgentServerEnv>()
  .get("/info", (c) => c.json(serverInfo()))
  .get("/docs", (c) => c.html(DOCS_PAGE))
  .get("/openapi.json", (c) => c.json(API_DOCUMENT))
  .get("/ok", validate("query", OkQuery), async (c) => {
    if (c.req.valid("query").check_db === 1) {
      using queue = runQueueOf(c.env);
      await queue.ping();
    }
    return c.json({ ok: true });
  })
  .get("/metrics", validate("query", MetricsQuery), async (c) => {
    using queue = runQueueOf(c.env);
    const stats = await queue.stats();
    if (c.req.valid("query").format === "json") return c.json(jsonMetrics(stats));
    return c.body(prometheusMetrics(stats), 200, { "content-type": PROMETHEUS_CONTENT_TYPE });
  });
