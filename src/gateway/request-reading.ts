import { createMiddleware } from "hono/factory";
import { HTTPException } from "hono/http-exception";
import type { RuleTable } from "../rules/load.ts";
import { readRequest } from "../rules/read-request.ts";
import type { GatewayEnv } from "./types.ts";

/**
 * Reads the request once, as the upstream will (src/rules/read-request.ts), and puts that reading
 * on the context before anything looks at the request: the rule that counts it and the upstream
 * that serves it then see the same method, path and identity. What the upstream could read
 * differently is refused with 400 `{"detail": ...}` before any counter or upstream.
 *
 * @example
 * app.use("*", requestReading({ table: hostedApiTable }), rateLimit({ classifier }));
 */
export function requestReading(options: { table: RuleTable }) {
  const { table } = options;
  return createMiddleware<GatewayEnv>(async (c, next) => {
    // The one parse of the URL; the proxy reuses it.
    const url = new URL(c.req.url);
    const reading = readRequest(table, { method: c.req.method, rawPath: url.pathname, headers: c.req.raw.headers });
    if (!reading.ok) {
      throw new HTTPException(reading.status, { res: Response.json({ detail: reading.detail }, { status: reading.status }) });
    }
    c.set("url", url);
    c.set("path", reading.path);
    c.set("upstreamPath", reading.upstreamPath);
    c.set("apiKey", reading.apiKey);
    c.set("userId", reading.userId);
    await next();
  });
}
