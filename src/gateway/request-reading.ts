import { createMiddleware } from "hono/factory";
import { HTTPException } from "hono/http-exception";
import type { Classifier } from "../rules/classify.ts";
import { readRequest } from "../rules/read-request.ts";
import { gatewayConfig, type Routing } from "./config.ts";
import { problemResponse } from "./problem.ts";
import { localRoute, upstreamForHost, type UpstreamName } from "./routes.ts";
import type { GatewayEnv } from "./types.ts";

/**
 * Reads the request once, as its upstream will (src/rules/read-request.ts), and puts that reading
 * on the context before anything looks at the request: which upstream it is for (by host, or
 * locally by mount prefix: routes.ts), then, with that upstream's rule table, its method, path and
 * identity. The rule that counts it and the upstream that serves it then see the same request.
 * A host the gateway does not serve is refused with 421; what the upstream could read differently
 * with 400 `{"detail": ...}`; both before any counter or upstream.
 *
 * @example
 * app.use("*", requestReading({ classifiers }), rateLimit({ classifiers }));
 */
export function requestReading(options: { classifiers: Readonly<Record<UpstreamName, Classifier>> }) {
  const { classifiers } = options;
  return createMiddleware<GatewayEnv>(async (c, next) => {
    // The one parse of the URL; the proxy reuses it.
    const url = new URL(c.req.url);
    const { upstream, rawPath } = route(gatewayConfig(c.env).routing, url);
    const reading = readRequest(classifiers[upstream].table, { method: c.req.method, rawPath, headers: c.req.raw.headers });
    if (!reading.ok) {
      throw new HTTPException(reading.status, { res: Response.json({ detail: reading.detail }, { status: reading.status }) });
    }
    c.set("url", url);
    c.set("upstream", upstream);
    c.set("path", reading.path);
    c.set("upstreamPath", reading.upstreamPath);
    c.set("apiKey", reading.apiKey);
    c.set("userId", reading.userId);
    await next();
  });
}

/**
 * The upstream a request is for, and its path as that upstream's own (still encoded).
 * @throws HTTPException 421 for a host this gateway does not serve.
 */
function route(routing: Routing, url: URL): { upstream: UpstreamName; rawPath: string } {
  if (routing.kind === "hosts") {
    const upstream = upstreamForHost(routing.hosts, url.hostname);
    if (!upstream) {
      throw new HTTPException(421, {
        res: problemResponse({ title: "Misdirected Request", status: 421, detail: `This gateway does not serve the host ${url.hostname}.` }),
      });
    }
    return { upstream, rawPath: url.pathname };
  }
  return localRoute(url.pathname);
}
