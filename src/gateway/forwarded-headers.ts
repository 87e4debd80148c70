import { IDENTITY_HEADERS } from "../core/rules/read-request.ts";
import { clientConnectionOptions, HOP_BY_HOP_HEADERS } from "./hop-by-hop.ts";
import { LOCAL_EDGE_HEADER } from "./local-edge-header.ts";
import { LOCAL_RESOLVE_OVERRIDE_HEADER } from "./public-host.ts";

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

/** Headers the gateway sets itself from what the edge saw; a client-sent value never passes. */
const GATEWAY_SET_HEADERS = ["x-forwarded-for", "x-real-ip", "true-client-ip", "forwarded", "x-forwarded-host", "x-forwarded-proto"];

/**
 * Every header name no client value passes under: the lists above, hop-by-hop headers,
 * `Accept-Encoding` (the proxy sets the client's own, as the edge received it: proxy.ts), and
 * npm start's local-edge secret (local-edge-guard.ts) and origin override (public-host.ts), which
 * are the gateway's alone.
 */
const DROPPED = new Set([
  ...CLIENT_ADDRESS_HEADERS,
  ...REQUEST_REWRITE_HEADERS,
  ...GATEWAY_SET_HEADERS,
  ...HOP_BY_HOP_HEADERS,
  "accept-encoding",
  LOCAL_EDGE_HEADER,
  LOCAL_RESOLVE_OVERRIDE_HEADER,
]);

/**
 * What the gateway tells one upstream about the client (docs/identity-data.md, "What each upstream
 * receives"): only what that upstream reads, never what it would store unasked.
 */
export interface ForwardingPolicy {
  /** `X-Forwarded-For`, `X-Real-IP`, `True-Client-IP` and `Forwarded: for=`: the client's address (FORWARD_CLIENT_ADDRESS). */
  readonly clientAddress: boolean;
  /**
   * `X-Forwarded-Host` and `-Proto`: the public host and scheme, for an upstream that builds URLs
   * from them. An upstream that builds them from `Host` gets the public host there instead (proxy.ts).
   */
  readonly forwardedHost: boolean;
}

/**
 * Turns `headers`, a copy of the client's headers `sent` (the upstream request's own, made with
 * it), into the headers the upstream receives, or says why the request is refused:
 * - names holding `_` are dropped: CGI/WSGI-style stacks read `x_api_key` as `x-api-key`, a
 *   second identity the gateway did not count (nginx drops them by default for the same reason);
 * - client-address and request-rewriting headers are dropped, whatever the policy: what the
 *   upstream learns of the client comes from the edge. Then, as `policy` says, `X-Forwarded-For`,
 *   `X-Real-IP`, `True-Client-IP` and `Forwarded`'s `for=` are set from `CF-Connecting-IP` alone
 *   (the address Cloudflare's edge saw, `edgeAddress`), and `X-Forwarded-Host`/`-Proto` from the
 *   URL; `Forwarded` always names the public host and scheme (RFC 7239; no upstream stores it);
 * - hop-by-hop headers are dropped, with every header the client's `Connection` names
 *   (hop-by-hop.ts); a `Connection` naming anything but header names, or naming an identity
 *   header (`x-api-key`, `x-user-id`: the request was counted by it), is refused. The headers the
 *   gateway sets are its own, never the client's connection's, so `Connection` cannot remove them.
 * One scan of the client's names finds what to drop from the copy. The headers are copied whole
 * (with the request) and pruned, never rebuilt line by line: in workerd each line handed over
 * costs more than a whole copy.
 *
 * @returns the refusal's detail (400), or undefined once `headers` are ready.
 */
export function prepareUpstreamHeaders(
  headers: Headers,
  sent: Headers,
  url: URL,
  edgeAddress: string | undefined,
  policy: ForwardingPolicy = { clientAddress: true, forwardedHost: true },
): string | undefined {
  let connection = false;
  for (const name of sent.keys()) {
    if (!DROPPED.has(name) && !name.includes("_")) continue;
    headers.delete(name);
    if (name === "connection") connection = true;
  }
  if (connection) {
    const options = clientConnectionOptions(sent.get("connection") ?? "");
    if (!options.ok) return `Invalid Connection header value: ${options.invalid.join(", ")}`;
    // The identity was counted from these headers; dropped on the way, the upstream would act for
    // another caller (no key: the address's) than the one counted.
    const identity = options.names.find((name) => (IDENTITY_HEADERS as readonly string[]).includes(name));
    if (identity !== undefined) return `Connection must not name ${identity}: the rate limit counts the request by it, so it is passed to the upstream.`;
    for (const name of options.names) headers.delete(name);
  }

  const host = url.host;
  const proto = url.protocol.slice(0, -1);
  let forwarded = `host=${quoted(host)};proto=${proto}`;
  if (edgeAddress && policy.clientAddress) {
    headers.set("x-forwarded-for", edgeAddress);
    headers.set("x-real-ip", edgeAddress);
    headers.set("true-client-ip", edgeAddress);
    // RFC 7239: an IPv6 node is bracketed and the whole value quoted.
    forwarded = `for=${edgeAddress.includes(":") ? `"[${edgeAddress.replace(/^\[|\]$/g, "")}]"` : edgeAddress};${forwarded}`;
  }
  headers.set("forwarded", forwarded);
  if (policy.forwardedHost) {
    headers.set("x-forwarded-host", host);
    headers.set("x-forwarded-proto", proto);
  }
  return undefined;
}

/** An RFC 7239 value: a token as it is, anything else (a host with a port) quoted. */
function quoted(value: string): string {
  return /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(value) ? value : `"${value.replace(/["\\]/g, "\\$&")}"`;
}
