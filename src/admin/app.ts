import { Hono } from "hono";
import { executionContext, type FrontDoor } from "../gateway/runtime.ts";
import { GatewayError } from "../http/gateway-error.ts";
import { renderError } from "../http/render-error.ts";
import { adminAuth, notFound } from "./auth.ts";
import { adminDoor, adminHostsOf, rawPathOf } from "./hosts.ts";
import { reachesReservedPath, RESERVED_PREFIX } from "../core/rules/reserved-path.ts";
import { counterRoutes } from "./routes/counters.ts";
import { dashboardRoutes } from "./routes/dashboard.ts";
import { explainRoutes } from "./routes/explain.ts";
import { healthRoutes } from "./routes/health.ts";
import { metricsRoutes } from "./routes/metrics.ts";
import { overrideRoutes } from "./routes/overrides.ts";
import { rulesRoutes } from "./routes/rules.ts";
import type { AdminDeps, AdminEnv } from "./types.ts";

/** Where the admin API lives on its hosts (ADMIN_HOSTS): the gateway's reserved prefix, never forwarded. */
export const ADMIN_PREFIX = RESERVED_PREFIX;

/**
 * The admin API as the gateway's front door (src/worker.ts), on its own hosts only (ADMIN_HOSTS,
 * docs/admin.md): an admin host serves nothing else, and `ADMIN_PREFIX/` elsewhere is a 404,
 * never forwarded. It checks the configuration itself (health reports it). Whether a path is under
 * ADMIN_PREFIX is read on its canonical path, the one the gateway would forward
 * (src/core/rules/reserved-path.ts), so no spelling of it (`//_tollgate/`, `/%2F_tollgate/`)
 * passes as an upstream's.
 */
export const adminFrontDoor: FrontDoor = (parts) => {
  // The routes get the isolate's runtime for the request's env, never the isolate itself.
  const admin = adminSite({ tables: parts.tables, runtime: parts.runtime }).onError((error) => renderError(error));
  return (c) => {
    const door = adminDoor(c.env, c.req.url, reachesReservedPath(rawPathOf(c.req.url)));
    if (door === "admin") return admin.fetch(c.req.raw, c.env, executionContext(c));
    if (door === "not-found") return renderError(notFound());
    return undefined;
  };
};

/**
 * What an admin host serves (hosts.ts): the admin API under ADMIN_PREFIX, and a 404 for any other
 * path, never upstream content. While ADMIN_HOSTS is wrong, every answer but health's names the
 * mistake (health says it too, with its 503).
 *
 * @example
 * if (adminDoor(env, request.url, reachesReservedPath(rawPathOf(request.url))) === "admin") return adminSite({ tables, runtime }).fetch(request, env);
 */
export function adminSite(deps: AdminDeps) {
  return new Hono<AdminEnv>()
    .use("*", async (c, next) => {
      const { mistake } = adminHostsOf(c.env);
      if (mistake && c.req.path !== `${ADMIN_PREFIX}/health`) throw new GatewayError("misconfigured", mistake.message);
      await next();
    })
    .route(ADMIN_PREFIX, adminApi(deps))
    .notFound(() => renderError(new GatewayError("not-found", `This host serves the gateway's admin API only, under ${ADMIN_PREFIX}/.`)));
}

/**
 * The admin API (docs/operating.md; docs/admin.md), mounted at ADMIN_PREFIX of the
 * admin hosts before the rate limiter, so none of it is ever counted. `health` needs no token;
 * everything else needs an admin token (401 without or with a wrong one, 429 after a few wrong
 * ones, 403 for a change with a read-only one) and answers 404 when none is configured. The whole
 * prefix belongs to it: an unknown path under it is a 404 here, never forwarded to an upstream.
 *
 * @example
 * app.route(ADMIN_PREFIX, adminApi({ tables, runtime: (env) => isolate.runtime(env) }));
 */
export function adminApi(deps: AdminDeps) {
  return new Hono<AdminEnv>()
    .route("/", healthRoutes(deps))
    .use("*", adminAuth(deps))
    .route("/", rulesRoutes(deps))
    .route("/", explainRoutes(deps))
    .route("/", counterRoutes(deps))
    .route("/", overrideRoutes(deps))
    .route("/", metricsRoutes(deps))
    .route("/", dashboardRoutes(deps))
    .all("*", () => {
      throw notFound();
    });
}
