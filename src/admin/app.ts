import { Hono } from "hono";
import type { Isolate } from "../gateway/isolate.ts";
import type { UpstreamName } from "../gateway/routes.ts";
import type { RuleTable } from "../rules/load.ts";
import { adminAuth, notFound } from "./auth.ts";
import { counterRoutes } from "./routes/counters.ts";
import { dashboardRoutes } from "./routes/dashboard.ts";
import { explainRoutes } from "./routes/explain.ts";
import { healthRoutes } from "./routes/health.ts";
import { metricsRoutes } from "./routes/metrics.ts";
import { overrideRoutes } from "./routes/overrides.ts";
import { rulesRoutes } from "./routes/rules.ts";
import type { AdminEnv } from "./types.ts";

/** Where the admin API lives on every host the gateway serves. */
export const ADMIN_PREFIX = "/_tollgate";

/**
 * The admin API (README, "Operating the gateway"), mounted at ADMIN_PREFIX before the rate
 * limiter, so none of it is ever counted. `health` needs no token; everything else needs an admin
 * token (401 without or with a wrong one) and answers 404 when none is configured. The whole
 * prefix belongs to it: an unknown path under it is a 404 here, never forwarded to an upstream.
 *
 * @example
 * app.route(ADMIN_PREFIX, adminApi({ tables, isolate }));
 */
export function adminApi(options: { tables: Readonly<Record<UpstreamName, RuleTable>>; isolate: Isolate }) {
  const { tables, isolate } = options;
  return new Hono<AdminEnv>()
    .use("*", async (c, next) => {
      c.set("isolate", isolate);
      await next();
    })
    .route("/", healthRoutes)
    .use("*", adminAuth())
    .route("/", rulesRoutes(tables))
    .route("/", explainRoutes(tables))
    .route("/", counterRoutes(tables))
    .route("/", overrideRoutes(tables))
    .route("/", metricsRoutes)
    .route("/", dashboardRoutes(tables))
    .all("*", () => notFound());
}
