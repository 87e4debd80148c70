/*
 * How the gateway reads a WebSocket upgrade (docs/rules.md, "WebSockets"). An upgrade is counted
 * like any request on its path, method and identity; what this module adds is refusing the
 * spellings through which an upgrade could reach an upstream as something the gateway did not
 * count: another method than GET, or a credential carried where the gateway does not read one.
 */

/** The request's headers (read-request.ts's HeaderReader, repeated here so neither imports the other). */
interface HeaderReader {
  get(name: string): string | null;
}

export type UpgradeReading = { readonly ok: true; readonly websocket: boolean } | { readonly ok: false; readonly detail: string };

/**
 * Query parameter names (lower-case, `-` and `_` removed) that servers and client libraries use
 * for a credential when a browser's WebSocket cannot send headers. The gateway counts by the
 * `x-api-key` header only, so on an upgrade each of these is refused rather than passed on.
 */
const QUERY_CREDENTIALS = new Set([
  "apikey",
  "xapikey",
  "key",
  "token",
  "accesstoken",
  "authtoken",
  "auth",
  "authorization",
  "bearer",
  "jwt",
  "tenantid",
  "xtenantid",
  "session",
  "sessionid",
]);

/**
 * Reads a request that has an `Upgrade` header (`upgrade`, its value). It is a WebSocket upgrade
 * when that value is `websocket` (any case, spaces around it ignored), whatever `Connection` says:
 * that is the one test the Workers runtime makes before it lets a Worker answer with a socket, and
 * the gateway asks the upstream with a well-formed `Connection: Upgrade` of its own. Any other
 * `Upgrade` (`websocket, h2c`, `websocket/13`) is a hop-by-hop header the proxy drops, and the
 * request goes on, counted, as plain HTTP.
 * A WebSocket upgrade is refused (400, before any counter) when:
 * - its method is not GET: RFC 6455 opens a socket with GET only, so another method could be
 *   counted on one rule and opened as a socket under another;
 * - it offers `Sec-WebSocket-Protocol`: no upstream defines a subprotocol, and one is where
 *   browser clients smuggle a token the gateway would not count by;
 * - its query names a credential (QUERY_CREDENTIALS), for the same reason.
 */
export function readUpgrade(method: string, upgrade: string, headers: HeaderReader, search: string): UpgradeReading {
  if (upgrade.trim().toLowerCase() !== "websocket") return { ok: true, websocket: false };
  if (method.toUpperCase() !== "GET") {
    return refuse(`A WebSocket upgrade must use GET (RFC 6455), not ${method.toUpperCase()}: send the upgrade as a GET on the path you mean.`);
  }
  if (headers.get("sec-websocket-protocol") !== null) {
    return refuse(
      "Header Sec-WebSocket-Protocol is not accepted: no upstream behind this gateway defines a WebSocket subprotocol, and a " +
        "credential sent in one would not be the identity the rate limit counts. Send the x-api-key header instead.",
    );
  }
  const credential = search.length > 1 ? queryCredential(search) : undefined;
  if (credential !== undefined) {
    return refuse(
      `Query parameter ${credential} is not accepted on a WebSocket upgrade: the rate limit counts the x-api-key header, ` +
        `and a credential in the query would not be the identity it counts. Send the x-api-key header instead.`,
    );
  }
  return { ok: true, websocket: true };
}

/** The first query parameter whose name reads as a credential, as it was sent. */
function queryCredential(search: string): string | undefined {
  for (const name of new URLSearchParams(search).keys()) {
    if (QUERY_CREDENTIALS.has(name.toLowerCase().replace(/[-_]/g, ""))) return name;
  }
  return undefined;
}

function refuse(detail: string): UpgradeReading {
  return { ok: false, detail };
}
