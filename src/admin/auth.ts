import { createMiddleware } from "hono/factory";
import { HTTPException } from "hono/http-exception";
import { problemResponse, unauthorized } from "../gateway/problem.ts";
import type { AdminEnv } from "./types.ts";
import { configuredTokens, type AdminToken } from "./settings.ts";

const encoder = new TextEncoder();

async function sha256(text: string): Promise<ArrayBuffer> {
  return crypto.subtle.digest("SHA-256", encoder.encode(text));
}

/**
 * The name of the token `presented` equals, compared in constant time: both sides are hashed
 * first (equal lengths, so timingSafeEqual applies) and every configured token is compared, so
 * the time taken says nothing about how much of a token was right, or which one.
 */
export async function tokenName(presented: string, tokens: readonly AdminToken[]): Promise<string | undefined> {
  const given = await sha256(presented);
  let found: string | undefined;
  for (const { name, token } of tokens) {
    if (crypto.subtle.timingSafeEqual(given, await sha256(token)) && found === undefined) found = name;
  }
  return found;
}

/** The credential of `Authorization: Bearer <token>`, or of Basic with the token as password (a browser's login). */
export function presentedToken(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const [scheme, value = ""] = header.trim().split(/\s+/, 2);
  if (scheme?.toLowerCase() === "bearer") return value || undefined;
  if (scheme?.toLowerCase() !== "basic") return undefined;
  let decoded: string;
  try {
    decoded = new TextDecoder().decode(Uint8Array.from(atob(value), (c) => c.charCodeAt(0)));
  } catch {
    return undefined;
  }
  const colon = decoded.indexOf(":");
  return colon === -1 ? undefined : decoded.slice(colon + 1) || undefined;
}

/**
 * Admits a request with a configured admin token and puts the token's name on the context (the
 * audit log's actor); anything else gets 401. With no token configured the admin API is off and
 * answers 404, as if it did not exist. Changes (any method but GET and HEAD) must also come from
 * the gateway's own origin: a browser logged in with Basic would otherwise send its credentials
 * along with another site's request.
 *
 * @example
 * admin.use("*", adminAuth());
 */
export function adminAuth() {
  return createMiddleware<AdminEnv>(async (c, next) => {
    const tokens = configuredTokens(c.env);
    if (tokens.length === 0) throw new HTTPException(404, { res: notFound() });
    const presented = presentedToken(c.req.header("authorization"));
    const name = presented === undefined ? undefined : await tokenName(presented, tokens);
    if (name === undefined) throw new HTTPException(401, { res: unauthorized(/\btext\/html\b/.test(c.req.header("accept") ?? "")) });
    if (c.req.method !== "GET" && c.req.method !== "HEAD") refuseCrossSite(c.req.raw);
    c.set("actor", name);
    await next();
  });
}

/** The admin API's 404: the same whether it is off or the path does not exist. */
export function notFound(): Response {
  return problemResponse({ title: "Not Found", status: 404, detail: "Not Found" });
}

function refuseCrossSite(request: Request): void {
  const origin = request.headers.get("origin");
  const site = request.headers.get("sec-fetch-site");
  // Compared by host: behind a proxy (npm start's local edge) the URL's scheme or port may differ
  // from what the browser used, the Host header does not.
  const hosts = [new URL(request.url).host, request.headers.get("host")];
  const foreign = origin !== null && (!URL.canParse(origin) || !hosts.includes(new URL(origin).host));
  if (foreign || (site !== null && site !== "same-origin" && site !== "none")) {
    throw new HTTPException(403, {
      res: problemResponse({ title: "Forbidden", status: 403, detail: "Admin changes are accepted from the gateway's own origin only." }),
    });
  }
}
