import { createMiddleware } from "hono/factory";
import { HTTPException } from "hono/http-exception";
import { normalizePath } from "../rules/normalize.ts";
import type { GatewayEnv } from "./types.ts";

/**
 * Puts the canonical path on the context before anything looks at it, so the rule that counts a
 * request and the upstream that serves it see the same path. A path that cannot be decoded is
 * refused with 400 `{"detail": ...}` before it reaches any counter or upstream.
 */
export function canonicalPath() {
  return createMiddleware<GatewayEnv>(async (c, next) => {
    const result = normalizePath(rawPathname(c.req.url));
    if (!result.ok) {
      throw new HTTPException(400, {
        res: Response.json({ detail: `Malformed request path: ${result.detail}` }, { status: 400 }),
      });
    }
    c.set("path", result.path);
    c.set("upstreamPath", result.upstreamPath);
    await next();
  });
}

/** The path as sent, still percent-encoded (URL.pathname is that, minus query and fragment). */
function rawPathname(url: string): string {
  return new URL(url).pathname;
}
