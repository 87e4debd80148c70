// A proxied answer's head sent as soon as it arrives, not with its first body byte.
import http from "node:http";
import type { ProxyServer } from "http-proxy-3";

/**
 * Node sends a response's head with its first body write; an upstream that sends its headers
 * first (an event stream's subscription, a wait with keep-alive bytes) would wait here for a body
 * byte. http-proxy copies status and headers right after 'proxyRes', in the same tick, and starts
 * piping the body on a later one: the head is flushed in between, as the upstream sent it.
 */
export function sendHeadEarly(proxy: ProxyServer): void {
  proxy.on("proxyRes", (_proxyRes, _req, res) => {
    process.nextTick(() => {
      if (res instanceof http.ServerResponse && !res.headersSent && !res.writableEnded) res.flushHeaders();
    });
  });
}
