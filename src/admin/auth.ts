import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import { GatewayError } from "../http/gateway-error.ts";
import { ceilSeconds } from "../gateway/runtime.ts";
import { clientIpKey } from "../core/rules/client-ip.ts";
import type { AdminDeps, AdminEnv } from "./types.ts";
import { configuredTokens, type AdminToken } from "./tokens.ts";
import { recordFailure, standing, throttleAddress } from "./throttle.ts";

const encoder = new TextEncoder();

async function sha256(text: string): Promise<ArrayBuffer> {
  return crypto.subtle.digest("SHA-256", encoder.encode(text));
}

/**
 * The configured token `presented` equals, compared in constant time: both sides are hashed
 * first (equal lengths, so timingSafeEqual applies) and every configured token is compared, so
 * the time taken says nothing about how much of a token was right, or which one.
 */
export async function matchToken(presented: string, tokens: readonly AdminToken[]): Promise<AdminToken | undefined> {
  const given = await sha256(presented);
  let found: AdminToken | undefined;
  for (const candidate of tokens) {
    if (crypto.subtle.timingSafeEqual(given, await sha256(candidate.token)) && found === undefined) found = candidate;
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
 * Admits a request with a configured admin token and puts the token's name (the audit log's
 * actor) and role on the context; anything else gets 401. With no token configured the admin API
 * is off and answers 404, as if it did not exist. A credential that is wrong counts against the
 * client's allowance (throttle.ts); a client past it is answered 429 whatever it sends, a valid
 * token included: were a valid token let through, its 200 among the 429s would tell a guesser it
 * had found one. A read-only token may only GET (and HEAD): anything else is 403. Changes must
 * also come from the admin host's own origin: a browser logged in with Basic would otherwise send
 * its credentials along with another site's request.
 *
 * @example
 * admin.use("*", adminAuth({ runtime: (env) => isolate.runtime(env) }));
 */
export function adminAuth(deps: Pick<AdminDeps, "runtime">) {
  return createMiddleware<AdminEnv>(async (c, next) => {
    const tokens = configuredTokens(c.env);
    if (tokens.length === 0) throw notFound();
    const presented = presentedToken(c.req.header("authorization"));
    // No credential is no guess: the first visit of a browser, answered with its login dialog.
    if (presented === undefined) throw unauthorized(wantsHtml(c));
    const token = await matchToken(presented, tokens);
    const runtime = deps.runtime(c.env);
    const { settings } = runtime;
    const address = throttleAddress(settings, clientIpKey(c.req.header("cf-connecting-ip")));
    const verdict = token ? await standing(runtime, address) : await recordFailure(runtime, address);
    if (verdict.retryInMs > 0) throw throttled(c, verdict.retryInMs, settings.region, token);
    if (!token) throw unauthorized(wantsHtml(c));
    if (token.role === "read" && c.req.method !== "GET" && c.req.method !== "HEAD") {
      throw new GatewayError("forbidden", `The token "${token.name}" is read-only: it may GET, and nothing else. Changes need an operator token.`);
    }
    if (c.req.method !== "GET" && c.req.method !== "HEAD") refuseCrossSite(c.req.raw);
    c.set("actor", token.name);
    c.set("role", token.role);
    await next();
  });
}

/**
 * 429 to a client past its allowance of failures, logged with neither the credential nor the
 * address, nor anything derived from the address (the line is the same in every region): the
 * token's name when the credential was valid, so an operator locked out shows as such.
 */
function throttled(c: Context<AdminEnv>, retryInMs: number, region: string, token: AdminToken | undefined): GatewayError {
  const retryAfter = Math.max(1, ceilSeconds(retryInMs));
  console.log(
    JSON.stringify({
      event: "admin_auth_throttled",
      region,
      method: c.req.method,
      path: c.req.path,
      retryAfter,
      credential: token ? "valid" : "wrong",
      ...(token && { actor: token.name }),
    }),
  );
  return new GatewayError("throttled", `Too many failed admin authentications from this client address. Retry after ${retryAfter} seconds.`, {
    headers: { "retry-after": String(retryAfter) },
  });
}

function wantsHtml(c: Context<AdminEnv>): boolean {
  return /\btext\/html\b/.test(c.req.header("accept") ?? "");
}

/** The admin API's 404: the same whether it is off or the path does not exist. */
export function notFound(): GatewayError {
  return new GatewayError("not-found", "Not Found");
}

function refuseCrossSite(request: Request): void {
  const origin = request.headers.get("origin");
  const site = request.headers.get("sec-fetch-site");
  // Compared by host: behind a proxy (npm start's local edge) the URL's scheme or port may differ
  // from what the browser used, the Host header does not.
  const hosts = [new URL(request.url).host, request.headers.get("host")];
  const foreign = origin !== null && (!URL.canParse(origin) || !hosts.includes(new URL(origin).host));
  if (foreign || (site !== null && site !== "same-origin" && site !== "none")) {
    throw new GatewayError("forbidden", "Admin changes are accepted from the gateway's own origin only.");
  }
}

/**
 * 401 for the admin API: no token, or not one of the configured ones (which is never said). A
 * browser (asking for HTML: the dashboard) is challenged with Basic, so it offers its login
 * dialog (password: the token); API clients with Bearer. One challenge each: browsers read only
 * the first challenge of a header line, and the runtime joins repeated lines into one.
 */
export function unauthorized(browser = false): GatewayError {
  return new GatewayError("unauthorized", "The admin API needs Authorization: Bearer <admin token> (a browser: the token as its login password).", {
    headers: { "www-authenticate": browser ? 'Basic realm="tollgate admin", charset="UTF-8"' : 'Bearer realm="tollgate admin"' },
  });
}
