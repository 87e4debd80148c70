import { Hono, type Context } from "hono";
import { HTTPException } from "hono/http-exception";
import { LinearRouter } from "hono/router/linear-router";
import { ADMIN_PREFIX, adminSite } from "../admin/app.ts";
import { notFound } from "../admin/auth.ts";
import { adminDoor } from "../admin/hosts.ts";
import type { Classifier } from "../rules/classify.ts";
import type { RuleTable } from "../rules/load.ts";
import { classifiers as publishedClassifiers } from "../rules/tables.ts";
import { ConfigError, gatewayConfig } from "./config.ts";
import { Isolate, type Clock } from "./isolate.ts";
import { problemResponse } from "./problem.ts";
import { forward } from "./proxy.ts";
import { rateLimit } from "./rate-limit.ts";
import { requestReading } from "./request-reading.ts";
import type { UpstreamName } from "./routes.ts";
import type { GatewayEnv } from "./types.ts";

/**
 * The request path, in order: route + read (as the upstream will) -> classify + count with that
 * upstream's rule table (rate-limit) -> proxy. The steps run in one handler, handing the request
 * they read on as a value: each middleware layer, and matching a path against the admin API's
 * routes, would cost every request a dispatch.
 * Every response the gateway makes itself is JSON with a `detail` string; nothing escapes as a
 * stack trace.
 *
 * @example
 * export default createGateway(); // the rule tables in rules/, the runtime's clock
 */
export function createGateway(options: { classifier?: Classifier; clock?: Clock; isolateId?: string } = {}) {
  // `classifier` replaces the hosted API's table (tests of custom tables).
  const classifiers = { ...publishedClassifiers, ...(options.classifier && { "hosted-api": options.classifier }) };
  const tables = Object.fromEntries(Object.entries(classifiers).map(([name, c]) => [name, c.table])) as Record<UpstreamName, RuleTable>;
  // Everything this gateway keeps between requests: one per isolate in production, one per
  // gateway in a test that runs several side by side.
  const isolate = new Isolate({ ...(options.clock && { clock: options.clock }), ...(options.isolateId && { id: options.isolateId }) });
  const admin = adminSite({ tables, isolate }).onError((error) => renderError(error));
  const read = requestReading({ classifiers });
  const limit = rateLimit({ classifiers });

  // One route for every path, so the linear router matches nothing.
  const app = new Hono<GatewayEnv>({ router: new LinearRouter() });
  app.all("*", async (c) => {
    // The admin API first, on its own hosts only (ADMIN_HOSTS, docs/admin.md): never read as an
    // upstream's request, never counted. An admin host serves nothing else, and `/_tollgate/`
    // elsewhere is a 404, never forwarded. It checks the configuration itself (health reports it).
    // `c.req.path` is the path Hono routes by (decoded), so the admin API sees the same requests
    // as when it was mounted on this app.
    const door = adminDoor(c.env, c.req.url, isAdminPath(c.req.path));
    if (door === "admin") return admin.fetch(c.req.raw, c.env, executionContext(c));
    if (door === "not-found") return notFound();
    c.set("isolate", isolate);
    // A misconfigured gateway answers every request with its 500, before reading anything.
    const config = gatewayConfig(c.env);
    const request = read(c, config);
    c.set("request", request);
    const headers = await limit(c, config, request);
    return forward(c, config, request, headers);
  });
  app.onError((error, c) => renderError(error, c.get("request")?.path));
  return app;
}

/** The paths Hono's mount of the admin API at ADMIN_PREFIX (`ADMIN_PREFIX/*`) matches. */
function isAdminPath(path: string): boolean {
  return path.startsWith(ADMIN_PREFIX) && (path.length === ADMIN_PREFIX.length || path.charCodeAt(ADMIN_PREFIX.length) === 0x2f);
}

/** The request's execution context, if it has one (a bare `app.fetch` in a test has none). */
function executionContext(c: Context): ExecutionContext | undefined {
  try {
    return c.executionCtx as ExecutionContext;
  } catch {
    return undefined;
  }
}

/** The one place errors become responses, for the gateway and the admin API alike. */
function renderError(error: Error, path?: string): Response {
  if (error instanceof HTTPException) {
    // Ours carry their response; one thrown by a helper carries only a message, rendered in the
    // API's shape.
    return error.res ?? Response.json({ detail: error.message || "Bad request" }, { status: error.status });
  }
  // A misconfiguration was logged once when it was found (config.ts); anything else, every time.
  if (error instanceof ConfigError) {
    const title = error.status === 503 ? "Gateway not ready" : "Gateway misconfigured";
    return problemResponse({ title, status: error.status, detail: error.message }, error.status === 503 ? { "retry-after": "60" } : undefined);
  }
  console.log(JSON.stringify({ event: "gateway_error", error: String(error), path }));
  return Response.json({ detail: "The gateway failed to handle this request." }, { status: 500 });
}
