// npm start's stand-in for Cloudflare's `cf.resolveOverride`: a request the gateway makes for the
// public URL (so the agent server reads the public host in `Host`, AGENT_SERVER_HOST=public) is
// sent on to the origin it names. Deployed, Cloudflare does this (src/gateway/public-host.ts).
import http from "node:http";
import { timingSafeEqual } from "node:crypto";
import { createProxyServer } from "http-proxy-3";
import { LOCAL_EDGE_HEADER } from "../../src/gateway/local-edge-header.ts";
import { LOCAL_PUBLIC_HOST_HEADER, LOCAL_RESOLVE_OVERRIDE_HEADER } from "../../src/gateway/public-host.ts";
import { sendHeadEarly } from "./early-head.ts";

/** An origin the override may name: scheme, host and port, nothing else. */
const ORIGIN = /^https?:\/\/[^/?#@\s]+$/;

/** A public host the gateway may name: a hostname or address, and a port. */
const HOST = /^[A-Za-z0-9.\-:[\]]+$/;

/**
 * Handles a request the gateway sent to the public host for an origin (it names the origin in
 * LOCAL_RESOLVE_OVERRIDE_HEADER and carries the session's secret, which only the gateway holds):
 * forwarded to that origin as it is, `Host` included, the two headers removed. Returns false for
 * any other request (a client's, which never holds the secret), which the edge serves as usual.
 */
export function createOriginConnector(secret: string | undefined): (req: http.IncomingMessage, res: http.ServerResponse) => boolean {
  const agent = new http.Agent({ keepAlive: true });
  const proxy = createProxyServer({ xfwd: false, agent });
  proxy.on("proxyReq", (proxyReq, req) => {
    // The host the client called: the request reached the edge by the edge's own address.
    const host = req.headers[LOCAL_PUBLIC_HOST_HEADER];
    if (typeof host === "string" && HOST.test(host)) proxyReq.setHeader("host", host);
    proxyReq.removeHeader(LOCAL_PUBLIC_HOST_HEADER);
    proxyReq.removeHeader(LOCAL_RESOLVE_OVERRIDE_HEADER);
    proxyReq.removeHeader(LOCAL_EDGE_HEADER);
  });
  sendHeadEarly(proxy);
  proxy.on("error", (error, _req, res) => {
    if (!(res instanceof http.ServerResponse)) return;
    if (res.headersSent) return void res.destroy();
    res.writeHead(502, { "content-type": "application/json", connection: "close" });
    res.end(JSON.stringify({ detail: `The origin could not be reached (${(error as NodeJS.ErrnoException).code ?? error.message}).` }));
  });
  return (req, res) => {
    const origin = req.headers[LOCAL_RESOLVE_OVERRIDE_HEADER];
    if (typeof origin !== "string" || !secret || !sameSecret(req.headers[LOCAL_EDGE_HEADER], secret) || !ORIGIN.test(origin)) return false;
    proxy.web(req, res, { target: origin });
    return true;
  };
}

function sameSecret(sent: string | string[] | undefined, secret: string): boolean {
  if (typeof sent !== "string") return false;
  const a = Buffer.from(sent);
  const b = Buffer.from(secret);
  return a.length === b.length && timingSafeEqual(a, b);
}
