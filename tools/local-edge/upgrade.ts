// How the local edge reads a request's `Upgrade` header: as the gateway does
// (src/core/rules/websocket-upgrade.ts, docs/rules.md "WebSockets"), so that what `npm start` relays
// as a socket, forwards as plain HTTP or refuses is what the deployed gateway would.
import type http from "node:http";

export type EdgeUpgrade =
  /** No `Upgrade` header: an ordinary request. */
  | { readonly kind: "none" }
  /** Exactly a WebSocket upgrade on a bodiless GET: relayed to the gateway as a socket. */
  | { readonly kind: "websocket" }
  /** Any other `Upgrade`: a hop-by-hop header the request goes on without, as plain HTTP. */
  | { readonly kind: "http" }
  /** A WebSocket upgrade the gateway must not see: answered 400 with `detail`. */
  | { readonly kind: "refused"; readonly detail: string };

/**
 * Reads `req`'s upgrade. It is a WebSocket upgrade when it has one `Upgrade` line whose value is
 * `websocket` (any case, spaces around it ignored), the one test the Workers runtime makes; two
 * lines, a list (`websocket, h2c`), a version (`websocket/13`) or another protocol make it plain
 * HTTP. A WebSocket upgrade is refused when:
 * - its method is not GET (RFC 6455 opens a socket with GET only; the gateway refuses it too);
 * - it carries a body (`Content-Length` above 0, or any `Transfer-Encoding`): once the socket is
 *   open the body's bytes would reach the upstream as frame data (Kestrel answers such an upgrade
 *   400 as well);
 * - its `Connection` does not name `upgrade`: Node's server then parses it as an ordinary request
 *   and cannot hand its socket over, where the Workers runtime would open one; RFC 6455 (4.2.1)
 *   answers such a handshake 400, which tells the client what to send instead of a different reply
 *   than it would get deployed.
 */
export function readEdgeUpgrade(req: http.IncomingMessage): EdgeUpgrade {
  const values: string[] = [];
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    if (req.rawHeaders[i]!.toLowerCase() === "upgrade") values.push(req.rawHeaders[i + 1]!);
  }
  if (values.length === 0) return { kind: "none" };
  if (values.length > 1 || values[0]!.trim().toLowerCase() !== "websocket") return { kind: "http" };
  const method = req.method ?? "";
  if (method !== "GET") {
    return refused(`A WebSocket upgrade must use GET (RFC 6455), not ${method}: send the upgrade as a GET on the path you mean.`);
  }
  const transferEncoding = req.headers["transfer-encoding"];
  if (transferEncoding !== undefined) return refused(bodyDetail(`Transfer-Encoding: ${transferEncoding}`));
  const contentLength = req.headers["content-length"];
  if (contentLength !== undefined && Number(contentLength) !== 0) return refused(bodyDetail(`Content-Length: ${contentLength}`));
  if (!namesUpgrade(req.headers.connection)) {
    return refused(
      "A WebSocket upgrade must send Connection: Upgrade (RFC 6455): without it the local edge reads the request as plain HTTP and cannot open a socket.",
    );
  }
  return { kind: "websocket" };
}

/**
 * The `Connection` value a request that goes on as plain HTTP is forwarded with: the client's,
 * without its `upgrade` option (the upgrade it asked for is not made), or none when nothing else is
 * left. Its other options stay for the gateway to read (it refuses one that names an identity header).
 */
export function connectionWithoutUpgrade(connection: string | undefined): string | undefined {
  if (connection === undefined) return undefined;
  const kept = connection
    .split(",")
    .map((option) => option.trim())
    .filter((option) => option !== "" && option.toLowerCase() !== "upgrade");
  return kept.length > 0 ? kept.join(", ") : undefined;
}

function namesUpgrade(connection: string | undefined): boolean {
  return connection?.split(",").some((option) => option.trim().toLowerCase() === "upgrade") ?? false;
}

function bodyDetail(framing: string): string {
  return `A WebSocket upgrade must not carry a body (${framing}): its bytes would reach the upstream as frame data. Send the upgrade without one.`;
}

function refused(detail: string): EdgeUpgrade {
  return { kind: "refused", detail };
}
