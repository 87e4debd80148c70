import { clientIpKey, UNKNOWN_CLIENT } from "../rules/client-ip.ts";

/*
 * What the upstream learns about the client comes from the edge, never from the client: a
 * client-sent `X-Real-IP` or `Forwarded` read by an upstream (or its proxy middleware) would
 * let a client pick its own address, and with it its own rate-limit identity.
 */

/** Headers through which some stack learns the client address. Client-sent values are dropped. */
const CLIENT_ADDRESS_HEADERS = [
  "forwarded",
  "x-forwarded-for",
  "x-real-ip",
  "true-client-ip",
  "x-client-ip",
  "x-cluster-client-ip",
  "client-ip",
  "forwarded-for",
  "x-forwarded",
  "x-original-forwarded-for",
  "fastly-client-ip",
  "cf-connecting-ipv6",
  "cf-pseudo-ipv4",
];

/** Headers through which some stack rewrites the request line behind the gateway's back. */
const REQUEST_REWRITE_HEADERS = ["x-original-url", "x-rewrite-url", "x-forwarded-prefix", "x-forwarded-port", "x-forwarded-server"];

/**
 * The headers the upstream receives, from the client's:
 * - names holding `_` are dropped: CGI/WSGI-style stacks read `x_api_key` as `x-api-key`, a
 *   second identity the gateway did not count (nginx drops them by default for the same reason);
 * - client-address and request-rewriting headers are dropped, then `X-Forwarded-For`,
 *   `X-Real-IP`, `True-Client-IP` and `Forwarded` are set from `CF-Connecting-IP` alone (the
 *   address Cloudflare's edge saw), and `X-Forwarded-Host`/`-Proto` from the request URL.
 */
export function upstreamHeaders(incoming: Headers, url: URL): Headers {
  const headers = new Headers();
  for (const [name, value] of incoming) {
    if (!name.includes("_")) headers.append(name, value);
  }
  for (const name of [...CLIENT_ADDRESS_HEADERS, ...REQUEST_REWRITE_HEADERS]) headers.delete(name);

  const host = url.host;
  const proto = url.protocol.replace(":", "");
  const edgeAddress = incoming.get("cf-connecting-ip")?.trim();
  const forwarded = [`host=${quoted(host)}`, `proto=${proto}`];
  if (edgeAddress && clientIpKey(edgeAddress) !== UNKNOWN_CLIENT) {
    headers.set("x-forwarded-for", edgeAddress);
    headers.set("x-real-ip", edgeAddress);
    headers.set("true-client-ip", edgeAddress);
    // RFC 7239: an IPv6 node is bracketed and the whole value quoted.
    forwarded.unshift(`for=${edgeAddress.includes(":") ? `"[${edgeAddress.replace(/^\[|\]$/g, "")}]"` : edgeAddress}`);
  }
  headers.set("forwarded", forwarded.join(";"));
  headers.set("x-forwarded-host", host);
  headers.set("x-forwarded-proto", proto);
  return headers;
}

/** An RFC 7239 value: a token as it is, anything else (a host with a port) quoted. */
function quoted(value: string): string {
  return /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(value) ? value : `"${value.replace(/["\\]/g, "\\$&")}"`;
}
