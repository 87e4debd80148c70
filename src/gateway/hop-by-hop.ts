/*
 * Hop-by-hop headers (RFC 9110, section 7.6.1) describe one connection, so a proxy must not pass
 * them on: the fixed list, and every header the `Connection` header names. The rules are Hono's
 * proxy helper's (hono/src/helper/proxy) with `strictConnectionProcessing`, which the gateway used
 * before it built its upstream request in one pass: a client's `Connection` naming anything but
 * tokens is refused, an upstream's is read leniently.
 */

/** Hop-by-hop headers, whatever `Connection` says. */
export const HOP_BY_HOP_HEADERS = ["connection", "keep-alive", "proxy-authenticate", "proxy-authorization", "te", "trailer", "transfer-encoding", "upgrade"];
const HOP_BY_HOP = new Set(HOP_BY_HOP_HEADERS);

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
 * `Connection` names) removed, `Content-Encoding` and `Content-Length` removed when the runtime
 * decoded the body, then `extra` (the rate-limit headers) set. One copy of the headers.
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
  // One scan of the names present, then a delete per header that is there: a delete or `has`
  // per name of the fixed list would cross into the runtime for each, on every answer.
  let dropped: string[] | undefined;
  let connection = false;
  let encoded = false;
  for (const name of headers.keys()) {
    if (name === "content-encoding") encoded = true;
    else if (HOP_BY_HOP.has(name)) {
      (dropped ??= []).push(name);
      if (name === "connection") connection = true;
    }
  }
  if (connection) {
    for (const option of headers.get("connection")!.split(",")) {
      const name = option.trim();
      if (TOKEN.test(name)) headers.delete(name);
    }
  }
  if (dropped) for (const name of dropped) headers.delete(name);
  if (encoded) {
    headers.delete("content-encoding");
    headers.delete("content-length");
  }
  if (extra) for (const name in extra) headers.set(name, extra[name]!);
}
