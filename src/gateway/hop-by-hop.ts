/*
 * Hop-by-hop headers (RFC 9110, section 7.6.1) describe one connection, so a proxy must not pass
 * them on: the fixed list, and every header the `Connection` header names. The rules are Hono's
 * proxy helper's (hono/src/helper/proxy) with `strictConnectionProcessing`, which the gateway used
 * before it built its upstream request in one pass: a client's `Connection` naming anything but
 * tokens is refused, an upstream's is read leniently.
 */

/** Hop-by-hop headers, whatever `Connection` says. */
export const HOP_BY_HOP_HEADERS = ["connection", "keep-alive", "proxy-authenticate", "proxy-authorization", "te", "trailer", "transfer-encoding", "upgrade"];

/** An RFC 9110 token: what a header name, and so a `Connection` option, is made of. */
const TOKEN = /^[!#$%&'*+\-.0-9A-Z^_`a-z|~]+$/;

/**
 * The header names (lower-case) a client's `Connection` value names, or the options that are not
 * tokens (then the request is refused, as Hono's proxy refuses it).
 */
export function clientConnectionOptions(value: string): { ok: true; names: string[] } | { ok: false; invalid: string[] } {
  const options = value.split(",").map((option) => option.trim());
  const invalid = options.filter((option) => !TOKEN.test(option));
  if (invalid.length > 0) return { ok: false, invalid };
  return { ok: true, names: options.map((option) => option.toLowerCase()) };
}

/**
 * The upstream's response headers as the client receives them: hop-by-hop headers (and those its
 * `Connection` names) removed, then `extra` (the rate-limit headers) set. `Content-Encoding` and
 * `Content-Length` stay: the proxy passes the body on as the upstream encoded it (proxy.ts). One
 * copy of the headers.
 */
export function downstreamHeaders(upstream: Headers, extra: Readonly<Record<string, string>> | undefined): Headers {
  const headers = new Headers(upstream);
  pruneDownstreamHeaders(headers, extra);
  return headers;
}

/**
 * Makes `headers`, a copy of the upstream's response headers (a response's own, made with it), what
 * the client receives, as downstreamHeaders does: the proxy's answer copies the upstream's headers
 * once, into the response it returns, and prunes them there.
 */
export function pruneDownstreamHeaders(headers: Headers, extra: Readonly<Record<string, string>> | undefined): void {
  // A delete per name of the fixed list, not one scan of the names present: in workerd a scan of
  // a response's few names costs more than eight deletes (npm run bench:workerd-ops, docs/bench.md).
  const connection = headers.get("connection");
  if (connection) {
    for (const option of connection.split(",")) {
      const name = option.trim();
      if (TOKEN.test(name)) headers.delete(name);
    }
  }
  for (const name of HOP_BY_HOP_HEADERS) headers.delete(name);
  if (extra) for (const name in extra) headers.set(name, extra[name]!);
}
