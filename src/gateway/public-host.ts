/**
 * The request that tells an agent server at an origin the host the client called (docs/rules.md,
 * "Routing and proxying"), for AGENT_SERVER_HOST=public. A Worker's fetch sends its URL's host as
 * `Host`, whatever the request's headers say, so the upstream request is made for the public URL
 * and sent to the origin by Cloudflare's `cf.resolveOverride` (the origin's hostname used to find
 * the server, the URL's host kept as `Host`; both hostnames in the gateway's zone). npm start's
 * local edge plays that part for the session (tools/local-edge/origin-connector.ts), told the
 * origin in LOCAL_RESOLVE_OVERRIDE_HEADER beside the session's secret. No runtime imports: the
 * edge (Node) reads the header's name from here.
 */

/** Where npm start's local edge reads the origin a request for the public URL is meant for. */
export const LOCAL_RESOLVE_OVERRIDE_HEADER = "x-tollgate-resolve-override";

/**
 * Where it reads the public host that request carries to the origin as `Host`: the request itself
 * goes to the edge's own address (LOCAL_EDGE_ORIGIN), so the public hostname (`agents.example.com`
 * sent to a local port) need not resolve on the machine.
 */
export const LOCAL_PUBLIC_HOST_HEADER = "x-tollgate-public-host";

/** The public URL the upstream request is made for, and what sends it to the origin instead. */
export interface PublicHostTarget {
  readonly url: string;
  /** Cloudflare's: the origin's hostname, used to find the server. */
  readonly resolveOverride: string;
  /** npm start's: the origin (scheme, host and port) the local edge connects to. */
  readonly localOrigin: string;
}

/**
 * The public URL for `upstreamUrl` (the origin's URL of the request: `origin` then the path and
 * query) as the client called it (`publicUrl`'s scheme and host).
 *
 * @example
 * publicHostTarget("http://127.0.0.1:2024/ui/agent", new URL("http://127.0.0.1:2024"), new URL("http://127.0.0.1:8787/agent-server/ui/agent"));
 * // { url: "http://127.0.0.1:8787/ui/agent", resolveOverride: "127.0.0.1", localOrigin: "http://127.0.0.1:2024" }
 */
export function publicHostTarget(upstreamUrl: string, origin: URL, publicUrl: URL): PublicHostTarget {
  const below = upstreamUrl.slice(origin.origin.length);
  return { url: `${publicUrl.protocol}//${publicUrl.host}${below}`, resolveOverride: origin.hostname, localOrigin: origin.origin };
}
