import { downstreamHeaders } from "./hop-by-hop.ts";

/*
 * A WebSocket through the gateway (docs/rules.md, "WebSockets"): the upgrade was read, classified
 * and counted like any request (src/core/rules/websocket-upgrade.ts); here it is asked of the
 * upstream and its socket handed to the client. The runtime joins the two sockets: frames, binary
 * or text, and closes pass both ways without the Worker reading or buffering them.
 */

/**
 * Makes the upstream request's headers a WebSocket upgrade: the client's `Upgrade` and `Connection`
 * were dropped as hop-by-hop headers (forwarded-headers.ts), so the upgrade is asked again in one
 * spelling, whatever the client's was (`WebSocket`, ` websocket `, any `Connection` list or none).
 * Given to a service binding's or the origin's `fetch`, it answers 101 with a `webSocket`.
 */
export function asWebSocketUpgrade(headers: Headers): void {
  headers.set("upgrade", "websocket");
  headers.set("connection", "Upgrade");
}

/**
 * The client's 101: the upstream's socket, with the upstream's headers as any response's
 * (hop-by-hop ones dropped) and the rate-limit headers. A 101 can be made only with its socket.
 */
export function relayedSocket(upstream: Response, extra: Readonly<Record<string, string>> | undefined): Response {
  return new Response(null, { status: 101, webSocket: upstream.webSocket, headers: downstreamHeaders(upstream.headers, extra) });
}
