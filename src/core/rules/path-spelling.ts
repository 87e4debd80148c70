/*
 * Which spellings of a path the gateway forwards as the client sent them.
 *
 * The gateway forwards the path as sent and counts it on its decoded, canonical reading
 * (normalize.ts). That holds only where the upstream reads the sent path as that same canonical
 * path; where it could read it otherwise, the request is refused (400) rather than rewritten, so
 * the upstream never acts on a path the client did not send, and no spelling reaches a route the
 * count did not see (docs/rules.md, "Canonical paths").
 *
 * How each upstream reads a path:
 * - Starlette (the hosted API, the control plane, the Python agent server) decodes the whole
 *   path once, `%2F` included, then matches routes on it as it is: no dot segment resolved, an
 *   empty segment (`//`, a trailing `/`) kept, so `/runs/query/` is another path (a 307 redirect
 *   or a 404), never the route `/runs/query`.
 * - Hono (the JS agent server, strict routing) decodes with `decodeURI`, which keeps reserved
 *   escapes: `%2F` stays inside its segment (`/threads%2Fsearch` is one segment, a 404), and
 *   route parameters are decoded afterwards (`/assistants/a%2Fb` is the assistant `a/b`). Empty
 *   segments are kept, as in Starlette; dot segments are resolved by the URL parser, before
 *   Hono and before the gateway alike.
 * One agent-server address may front either implementation, so the agent server's path is
 * forwarded as sent only where both read it alike: never with an encoded slash.
 * Everything else both read as the gateway does: escapes of other characters (`%61`, `%3A`,
 * `%7B`, in either hex case) decode to the same characters within the same segment.
 */
import type { UpstreamName } from "./upstreams.ts";

/** How an upstream splits a path into the segments its routes match. */
export type PathReading =
  /** Decode once, then split on `/` (a `%2F` is a separator). */
  | "starlette"
  /** Starlette or Hono, not known which: a `%2F` is read differently, so it is refused. */
  | "starlette-or-hono";

/** Each upstream's reading. The agent server may be the Python (Starlette) or the JS (Hono) server. */
export const PATH_READINGS: Readonly<Record<UpstreamName, PathReading>> = {
  "hosted-api": "starlette",
  "control-plane": "starlette",
  "agent-server": "starlette-or-hono",
};

/** The reading of a rule table's upstream (tables are named after their upstream); the stricter one for any other. */
export function pathReadingOf(tableName: string): PathReading {
  return PATH_READINGS[tableName as UpstreamName] ?? "starlette-or-hono";
}

/**
 * Routes an upstream's description spells with a trailing "/" (the agent server's `/mcp/`): there
 * the "/" is the route's own spelling, forwarded as sent, and the request is counted on the path
 * without it as every other is. No rule names such a path, so both spellings meet the same rule.
 */
export const SLASH_ROUTES: Readonly<Record<UpstreamName, readonly string[]>> = {
  "hosted-api": [],
  "control-plane": [],
  "agent-server": ["/mcp/"],
};

/** Whether `upstreamPath` (the upstream's own path, below any mount, with its trailing slash) is one of the table's upstream's SLASH_ROUTES. */
export function isSlashRoute(tableName: string, upstreamPath: string): boolean {
  return SLASH_ROUTES[tableName as UpstreamName]?.includes(upstreamPath) ?? false;
}

/** Longest stretch of a client's path echoed in a refusal. */
const ECHO_LIMIT = 120;

const quote = (path: string) => JSON.stringify(path.length > ECHO_LIMIT ? `${path.slice(0, ECHO_LIMIT)}...` : path);

/** A dot segment as a URL parser reads it (`.`, `..`, `%2e`, `.%2E`, ...). */
const DOT_SEGMENT = /^(?:\.|%2e){1,2}$/i;

/**
 * Why `sentPath` cannot be forwarded as sent to an upstream reading paths as `reading` says, or
 * undefined when that upstream reads it as its canonical `path` (normalize.ts). `sentPath` must be
 * well formed (normalizePath accepted it); `canonical` is the spelling to send instead.
 *
 * @example
 * spellingRefusal("/ok/", "starlette-or-hono", "/ok")  // "Path \"/ok/\" ends in \"/\": ... Send \"/ok\" instead."
 * spellingRefusal("/in%66o", "starlette-or-hono", "/info") // undefined: every reader decodes %66
 */
export function spellingRefusal(sentPath: string, reading: PathReading, canonical: string, slashRoute = false): string | undefined {
  if (!sentPath.startsWith("/")) return `Path ${quote(sentPath)} does not start with "/". Send ${quote(canonical)} instead.`;
  const encodedSlash = /%2f/i.test(sentPath);
  if (encodedSlash && reading === "starlette-or-hono") {
    return (
      `Path ${quote(sentPath)} holds an encoded slash (%2F): one agent server (Python, Starlette) reads it as a separator, ` +
      `another (JS, Hono) as part of a segment, so the gateway cannot tell which route it reaches. ` +
      `Send "/" where you mean a separator; a path segment cannot hold a slash.`
    );
  }
  if (sentPath === "/") return undefined;
  // The segments as the upstream splits them: after Starlette's one decode when an encoded slash
  // is a separator to it; otherwise on the raw path (every escape stays within its segment).
  const read = encodedSlash ? decodeURIComponent(sentPath) : sentPath;
  const segments = read.slice(1).split("/");
  const trailing = segments.at(-1) === "";
  if (trailing && !slashRoute) {
    return `Path ${quote(sentPath)} ends in "/": the upstream routes it as another path than ${quote(canonical)} (a redirect or a 404), while the gateway would count it as that one. Send ${quote(canonical)} instead.`;
  }
  if (segments.slice(0, trailing ? -1 : undefined).includes("")) {
    return `Path ${quote(sentPath)} holds an empty segment ("//"): the upstream routes it as another path than ${quote(canonical)}, while the gateway would count it as that one. Send ${quote(canonical)} instead.`;
  }
  // A decoded `%2e` is the three characters to Starlette, not a dot.
  if (segments.some((segment) => (encodedSlash ? segment === "." || segment === ".." : DOT_SEGMENT.test(segment)))) {
    return `Path ${quote(sentPath)} holds a "." or ".." segment, which the upstream does not resolve as the gateway would. Send ${quote(canonical)} instead.`;
  }
  return undefined;
}
