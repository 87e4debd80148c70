import { Hono } from "hono";
import type { Isolate } from "../gateway/isolate.ts";
import type { UpstreamName } from "../gateway/routes.ts";
import type { RuleTable } from "../rules/load.ts";
import { problemResponse } from "../gateway/problem.ts";
import { adminAuth, notFound } from "./auth.ts";
import { adminHostsOf } from "./hosts.ts";
import { counterRoutes } from "./routes/counters.ts";
import { dashboardRoutes } from "./routes/dashboard.ts";
import { explainRoutes } from "./routes/explain.ts";
import { healthRoutes } from "./routes/health.ts";
import { metricsRoutes } from "./routes/metrics.ts";
import { overrideRoutes } from "./routes/overrides.ts";
import { rulesRoutes } from "./routes/rules.ts";
import type { AdminEnv } from "./types.ts";

/** Where the admin API lives on its hosts (ADMIN_HOSTS). */
export const ADMIN_PREFIX = "/_tollgate";

/**
 * What an admin host serves (hosts.ts): the admin API under ADMIN_PREFIX, and a 404 for any other
 * path, never upstream content. While ADMIN_HOSTS is wrong, every answer but health's names the
 * mistake (health says it too, with its 503).
 *
 * @example
 * if (adminDoor(env, request.url, isAdminPath(path)) === "admin") return adminSite({ tables, isolate }).fetch(request, env);
 */
export function adminSite(options: { tables: Readonly<Record<UpstreamName, RuleTable>>; isolate: Isolate }) {
  return new Hono<AdminEnv>()
    .use("*", async (c, next) => {
      const { mistake } = adminHostsOf(c.env);
      if (mistake && c.req.path !== `${ADMIN_PREFIX}/health`) return problemResponse({ title: "Gateway misconfigured", status: 500, detail: mistake.message });
      await next();
    })
    .route(ADMIN_PREFIX, adminApi(options))
    .notFound(() => problemResponse({ title: "Not Found", status: 404, detail: `This host serves the gateway's admin API only, under ${ADMIN_PREFIX}/.` }));
}

/**
 * The admin API (docs/operating.md; docs/admin.md), mounted at ADMIN_PREFIX of the
 * admin hosts before the rate limiter, so none of it is ever counted. `health` needs no token;
 * everything else needs an admin token (401 without or with a wrong one, 429 after a few wrong
 * ones, 403 for a change with a read-only one) and answers 404 when none is configured. The whole
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
