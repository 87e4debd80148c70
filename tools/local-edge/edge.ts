// The local edge: what Cloudflare's edge does in front of the deployed gateway, done in front of
// `wrangler dev`. Without it a client of `npm start` could send its own CF-Connecting-IP (wrangler
// keeps a client's value) and pick its own rate-limit identity, and requests workerd cannot
// parse would be answered with bare 5xx pages instead of the API's `{"detail": ...}`.
import http from "node:http";
import type net from "node:net";
import { createProxyServer } from "http-proxy-3";
import { LOCAL_EDGE_HEADER } from "../../src/gateway/local-edge-header.ts";
import { connectionWithoutUpgrade, readEdgeUpgrade } from "./upgrade.ts";
import { sendHeadEarly } from "./early-head.ts";
import { createOriginConnector } from "./origin-connector.ts";

export interface LocalEdgeOptions {
  /** Where `wrangler dev` serves the gateway, e.g. http://127.0.0.1:40123 */
  readonly target: URL;
  /**
   * The session's LOCAL_EDGE_SECRET, sent on every request as LOCAL_EDGE_HEADER: the gateway
   * refuses a request without it, so its private port answers no one but this edge.
   */
  readonly secret?: string;
}

/** Client headers only the edge may set: the client address, its own secret, and wrangler's internal controls. */
const EDGE_ONLY = new RegExp(`^(cf-connecting-ip|cf-connecting-ipv6|cf-pseudo-ipv4|cf-worker|mf-.*|${LOCAL_EDGE_HEADER})$`, "i");

/**
 * An HTTP server that forwards every request to the gateway unchanged (bodies and server-sent
 * events streamed both ways, WebSocket upgrades and their frames included) except that
 * `CF-Connecting-IP` is the address of the client's socket, the session's secret is added, and
 * that what cannot be forwarded is answered as the API answers errors: a request Node cannot parse
 * 400, CONNECT 405, a gateway that is not up 502. An `Upgrade` is read as the gateway reads it
 * (upgrade.ts): exactly a WebSocket upgrade is relayed as a socket, any other goes on as plain HTTP
 * without it, and a WebSocket upgrade on another method than GET or with a body is answered 400.
 *
 * @example
 * createLocalEdge({ target: new URL("http://127.0.0.1:40123") }).listen(8787, "127.0.0.1");
 */
export function createLocalEdge({ target, secret }: LocalEdgeOptions): http.Server {
  // A keep-alive agent: without one the proxy asks wrangler dev for `Connection: close` and hands
  // that to the client, so every request of a keep-alive client paid for a new connection twice.
  const agent = new http.Agent({ keepAlive: true });
  const proxy = createProxyServer({ target: target.origin, xfwd: false, ws: true, agent });
  // The same for a request and a WebSocket upgrade: the socket's address, and the edge's secret.
  const stamp = (proxyReq: http.ClientRequest, req: http.IncomingMessage) => {
    stampClientAddress(proxyReq, req);
    if (secret) proxyReq.setHeader(LOCAL_EDGE_HEADER, secret);
  };
  proxy.on("proxyReq", (proxyReq, req) => {
    stamp(proxyReq, req);
    // A request that asked for another upgrade goes on as plain HTTP: the upgrade is not made, so
    // the gateway is not asked for it (the deployed gateway drops `Upgrade` as hop-by-hop too).
    if (req.headers.upgrade !== undefined) withoutUpgrade(proxyReq);
    // Miniflare plays Cloudflare's edge compression behind this edge: it gzips a text or JSON
    // answer for a client that accepts it, and its encoder holds a streamed body's chunks until the
    // end. The deployed gateway's zone compresses nothing (docs/rules.md, "Routing and proxying"),
    // so wrangler dev is not told what the client accepts: the client gets the bytes the gateway sent.
    proxyReq.removeHeader("accept-encoding");
  });
  sendHeadEarly(proxy);
  // The gateway's requests for the public URL, meant for an agent server's origin (AGENT_SERVER_HOST=public).
  const toOrigin = createOriginConnector(secret);
  proxy.on("proxyReqWs", stamp);
  proxy.on("error", (error, _req, res) => {
    const detail = `The gateway behind the local edge could not be reached (${(error as NodeJS.ErrnoException).code ?? error.message}); is wrangler dev still starting?`;
    if (res instanceof http.ServerResponse) {
      if (!res.headersSent) json(res, 502, { detail });
      else res.destroy();
    } else if (res.bytesWritten > 0) {
      // An upgraded socket (its 101 was written): an HTTP answer now would be read as frames.
      res.destroy();
    } else {
      rawJson(res, 502, "Bad Gateway", { detail });
    }
  });

  const server = http.createServer(
    // Node hands every request with `Connection: upgrade` to "upgrade" unless told otherwise, and
    // http-proxy closes the socket of any that is not a WebSocket upgrade on GET without a word.
    // Only what upgrade.ts relays is handed over; the rest are read as requests, below.
    { shouldUpgradeCallback: (req) => readEdgeUpgrade(req).kind === "websocket" },
    (req, res) => {
      if (toOrigin(req, res)) return;
      const upgrade = readEdgeUpgrade(req);
      if (upgrade.kind !== "refused") return proxy.web(req, res);
      json(res, 400, { detail: upgrade.detail });
      // Read and drop what the client is still sending, so the answer is not lost to a reset.
      req.resume();
    },
  );
  server.on("upgrade", (req, socket, head) => proxy.ws(req, socket, head));
  server.on("connect", (_req, socket: net.Socket) => {
    rawJson(socket, 405, "Method Not Allowed", { detail: "CONNECT is not served: this is an API gateway, not a forward proxy." });
  });
  server.on("clientError", (error: NodeJS.ErrnoException, socket: net.Socket) => {
    // Node could not parse the request (an unknown method, a bad header line...): as uvicorn does,
    // answer 400 rather than dropping the connection or failing upstream.
    if (!socket.writable) return socket.destroy();
    rawJson(socket, 400, "Bad Request", { detail: `Invalid HTTP request: ${error.code ?? "unparseable"}` });
  });
  return server;
}

/** Replaces whatever the client said about its address with the address of its socket. */
function stampClientAddress(proxyReq: http.ClientRequest, req: http.IncomingMessage): void {
  for (const name of proxyReq.getHeaderNames()) if (EDGE_ONLY.test(name)) proxyReq.removeHeader(name);
  proxyReq.setHeader("cf-connecting-ip", clientAddress(req.socket));
}

/**
 * Drops `Upgrade` and the `upgrade` option of `Connection` from a request forwarded as plain HTTP.
 * With no option left it asks for `keep-alive`, what the edge's agent sends on a request that
 * named none (removing the header would make Node send none).
 */
function withoutUpgrade(proxyReq: http.ClientRequest): void {
  proxyReq.removeHeader("upgrade");
  proxyReq.setHeader("connection", connectionWithoutUpgrade(proxyReq.getHeader("connection")?.toString()) ?? "keep-alive");
}

/** The client's address as Cloudflare writes it: IPv4 dotted, IPv6 without brackets. */
function clientAddress(socket: net.Socket): string {
  const address = socket.remoteAddress ?? "";
  return address.startsWith("::ffff:") && address.includes(".") ? address.slice("::ffff:".length) : address;
}

function json(res: http.ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json", connection: "close" });
  res.end(JSON.stringify(body));
}

/** A whole HTTP/1.1 response written on a socket that no ServerResponse owns. */
function rawJson(socket: net.Socket, status: number, reason: string, body: unknown): void {
  const text = JSON.stringify(body);
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(text)}\r\nconnection: close\r\n\r\n${text}`,
  );
}
