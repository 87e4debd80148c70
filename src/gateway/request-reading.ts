import type { Context } from "hono";
import type { Classifier } from "../core/rules/classify.ts";
import { clientIpKey, UNKNOWN_CLIENT } from "../core/rules/client-ip.ts";
import { readRequest } from "../core/rules/read-request.ts";
import type { RuleTable } from "../core/rules/load.ts";
import { socketRuleFor, type SocketRoute } from "../core/rules/socket-rules.ts";
import type { Routing } from "./settings.ts";
import { GatewayError } from "../http/gateway-error.ts";
import { localRoute, scopedRoute, upstreamForHost, type UpstreamName } from "./routes.ts";
import type { GatewayEnv, GatewayRequest } from "./types.ts";

/**
 * Reads the request once, as its upstream will (src/core/rules/read-request.ts), before anything acts
 * on it: which upstream it is for (by host, or locally by mount prefix: routes.ts), then, with
 * that upstream's rule table, its method, path and identity. The rule that counts it and the
 * upstream that serves it then see the same request: the path is forwarded as the client sent it
 * (a local mount taken off), and counted as the upstream reads that spelling.
 * A host the gateway does not serve is refused with 421; what the upstream could read differently
 * (a path spelling included: src/core/rules/path-spelling.ts) with 400 `{"detail": ...}`; both
 * before any counter or upstream.
 *
 * @example
 * const read = requestReading({ classifiers });
 * const request = read(c); // by c.var.runtime's routing; throws GatewayError misdirected (421) or bad-request (400)
 */
export function requestReading(options: { classifiers: Readonly<Record<UpstreamName, Classifier>> }) {
  const { classifiers } = options;
  return (c: Context<GatewayEnv>): GatewayRequest => {
    const raw = c.req.raw;
    // The one parse of the URL; the proxy reuses it.
    const url = new URL(raw.url);
    const { upstream, rawPath, strippedPrefix } = route(c.get("runtime").settings.routing, url);
    const reading = readRequest(classifiers[upstream].table, {
      method: raw.method,
      rawPath,
      sentPath: url.pathname,
      headers: raw.headers,
      search: url.search,
    });
    if (!reading.ok) {
      throw new GatewayError("bad-request", reading.detail);
    }
    const socket = reading.websocket ? socketOf(classifiers[upstream].table, reading.path) : undefined;
    const sent = raw.headers.get("cf-connecting-ip");
    const clientIp = clientIpKey(sent);
    return {
      url,
      upstream,
      path: reading.path,
      // As sent: a deployment's agent server is counted on its own path and reached below its prefix as sent.
      upstreamPath: strippedPrefix === undefined ? url.pathname : belowMount(url.pathname, strippedPrefix),
      ...(strippedPrefix !== undefined && { strippedPrefix }),
      apiKey: reading.apiKey,
      userId: reading.userId,
      clientIp,
      edgeAddress: clientIp === UNKNOWN_CLIENT ? undefined : sent!.trim(),
      ...(socket && { socket }),
    };
  };
}

/**
 * The socket rule a WebSocket upgrade on `path` opens under.
 * @throws GatewayError bad-request (400) where the upstream opens no socket the gateway knows how
 * to count: relayed unread, its frames would be calls no counter sees.
 */
function socketOf(table: RuleTable, path: string): SocketRoute {
  const socket = socketRuleFor(table, path);
  if (socket) return socket;
  throw new GatewayError(
    "bad-request",
    `No WebSocket is served on ${path}: the gateway relays a socket only where it knows how the calls it carries are counted ` +
      `(docs/rules.md, "WebSockets").`,
  );
}

/**
 * The upstream a request is for, its path as that upstream's own (still encoded), and for a
 * deployment's agent server the prefix forwarded in front of that path.
 * @throws GatewayError misdirected (421) for a host this gateway does not serve.
 */
function route(routing: Routing, url: URL): { upstream: UpstreamName; rawPath: string; forwardPrefix?: string; strippedPrefix?: string } {
  // A deployment's agent server is counted on its own path, however it was reached (routes.ts).
  return scopedRoute(upstreamOf(routing, url));
}

/**
 * The path as sent below a local mount: as many segments taken off as the mount has. Only the
 * agent server's mount is taken off, and its reading allowed the spelling (no empty segment, no
 * encoded slash: path-spelling.ts), so the sent path's segments are the canonical path's, one for one.
 */
function belowMount(sentPath: string, mount: string): string {
  const rest = sentPath.split("/").slice(mount.split("/").length);
  return rest.length === 0 ? "/" : `/${rest.join("/")}`;
}

/** By host (deployed) or by local mount. */
function upstreamOf(routing: Routing, url: URL): { upstream: UpstreamName; rawPath: string; strippedPrefix?: string } {
  if (routing.kind === "hosts") {
    const upstream = upstreamForHost(routing.hosts, url.hostname);
    if (!upstream) {
      throw new GatewayError("misdirected", `This gateway does not serve the host ${url.hostname}.`);
    }
    return { upstream, rawPath: url.pathname };
  }
  return localRoute(url.pathname);
}
