import type { Context } from "hono";
import type { Upstream } from "./settings.ts";
import { prepareUpstreamHeaders, type ForwardingPolicy } from "./forwarded-headers.ts";
import { pruneDownstreamHeaders } from "./hop-by-hop.ts";
import { isUiRoute, withMountInUiUrls } from "./mount-urls.ts";
import { asWebSocketUpgrade, relayedSocket, type SocketRelayOptions } from "./websocket.ts";
import { backgroundOf } from "./execution-context.ts";
import { withDeadline } from "./deadline.ts";
import { GatewayError } from "../http/gateway-error.ts";
import { renderError } from "../http/render-error.ts";
import { isBodiless } from "../core/rules/body-framing.ts";
import { firstByteTimeoutMs } from "./upstream-timeout.ts";
import { LOCAL_PUBLIC_HOST_HEADER, LOCAL_RESOLVE_OVERRIDE_HEADER, publicHostTarget } from "./public-host.ts";
import { LOCAL_EDGE_HEADER } from "./local-edge-header.ts";
import type { UpstreamName } from "./routes.ts";
import type { GatewayEnv, GatewayRequest } from "./types.ts";

/**
 * Forwards the request to its upstream on the path as the client sent it and returns the upstream's response
 * with bodies streamed both ways (no buffering, so server-sent events flow as they are written).
 * The upstream request is built once (forwarded-headers.ts) and the response once, with `headers`
 * (the rate-limit headers) among its own. The timeout covers the wait for response headers only
 * (the first byte of the answer), never a long stream after them, and is sized per operation
 * (upstream-timeout.ts); the client's abort and the timeout both end the upstream call. Every answer,
 * failures included (400 for an invalid `Connection`, 502 unreachable, 504 timed out), carries
 * `headers` and is measured (metrics.ts). The upstream, its timeout and the metrics are the
 * region runtime's (`c.var.runtime`). A WebSocket the upstream accepts is relayed with `relay`
 * (websocket.ts), which counts the calls it carries. A request holding a slot among its identity's
 * open requests (`held`, a concurrency rule) gives it back when its answer ends: a socket's close,
 * a streamed body's end or the client's leaving, a failure at once; a slot found lapsed ends it.
 */
export async function forward(
  c: Context<GatewayEnv>,
  request: GatewayRequest,
  headers?: Readonly<Record<string, string>>,
  relay?: SocketRelayOptions,
  held?: HeldSlot,
): Promise<Response> {
  // c.get, not c.var: Hono builds a fresh object of every variable on each read of c.var.
  const runtime = c.get("runtime");
  const started = runtime.now();
  const name = request.upstream;
  const upstream = runtime.upstream(name);
  const incoming = c.req.raw;
  // The client's headers are copied with the request, then made the upstream's; the body is the
  // client's stream itself: nothing is buffered. The upstream request follows the client's
  // signal, so the client's abort ends the upstream call (Request.signal; without the
  // enable_request_signal flag workerd cancels the whole request, its subrequests with it).
  // An upstream's redirect is the client's to follow (`redirect: "manual"`): followed here, the
  // client would never see the 3xx, and its headers (x-api-key) would go to the redirect target.
  // The gateway's timeout ends the upstream call too (`cut`), so a cut leaves no work behind.
  // The upstream's answer is passed on as it was encoded (`encodeResponseBody: "manual"` here,
  // `encodeBody: "manual"` on the answer): a compressed body is neither decoded nor re-encoded,
  // so its bytes and their chunking reach the client as the upstream sent them.
  // An agent server at an origin that builds URLs from Host is sent the request for the public
  // URL, routed to the origin (AGENT_SERVER_HOST=public, public-host.ts); a socket keeps the
  // origin's URL (the local edge relays none to an origin).
  const cut = new AbortController();
  const upstreamUrl = target(upstream, request);
  const publicHost =
    name === "agent-server" && upstream.kind === "origin" && runtime.settings.agentServerPublicHost && !request.socket
      ? publicHostTarget(upstreamUrl, upstream.origin, request.url)
      : undefined;
  // Under npm start the local edge plays resolveOverride (Cloudflare's is not emulated locally):
  // the request goes to the edge's own address, which sends it on to the origin with the public
  // host the session's secret vouches for.
  const { localEdgeSecret, localEdgeOrigin } = runtime.settings;
  const viaEdge = publicHost && localEdgeSecret && localEdgeOrigin ? localEdgeOrigin + publicHost.url.slice(new URL(publicHost.url).origin.length) : undefined;
  const outgoing = new Request(viaEdge ?? publicHost?.url ?? upstreamUrl, {
    method: incoming.method,
    headers: incoming.headers,
    body: isBodiless(incoming.method) ? null : incoming.body,
    signal: AbortSignal.any([incoming.signal, cut.signal]),
    redirect: "manual",
    encodeResponseBody: "manual",
    ...(publicHost && !viaEdge && { cf: { resolveOverride: publicHost.resolveOverride } }),
  });
  const policy = forwardingPolicy(name, upstream, runtime.settings.forwardClientAddress);
  const refused = prepareUpstreamHeaders(outgoing.headers, incoming.headers, request.url, request.edgeAddress, policy);
  // What the client accepts, as it said it (Cloudflare's edge, and Miniflare as it, hands the
  // Worker its own `Accept-Encoding` and the client's in `cf.clientAcceptEncoding`).
  const accepts = clientAcceptEncoding(incoming);
  if (accepts) outgoing.headers.set("accept-encoding", accepts);
  // A client's own X-Forwarded-Prefix was dropped above; the gateway says which mount it took off,
  // so an upstream building its own URLs (an A2A agent card) gives ones that reach it again. Not
  // to an agent server at an origin: it reads no prefix and would store the header in every run.
  if (request.strippedPrefix !== undefined && policy.forwardedHost) outgoing.headers.set("x-forwarded-prefix", request.strippedPrefix);
  if (publicHost && viaEdge) {
    outgoing.headers.set(LOCAL_RESOLVE_OVERRIDE_HEADER, publicHost.localOrigin);
    outgoing.headers.set(LOCAL_PUBLIC_HOST_HEADER, request.url.host);
    outgoing.headers.set(LOCAL_EDGE_HEADER, localEdgeSecret!);
  }
  // A WebSocket upgrade (websocket.ts) asks the upstream for the socket in the one spelling it reads.
  if (request.socket) asWebSocketUpgrade(outgoing.headers);
  let response =
    refused === undefined
      ? await answer(firstByteTimeoutMs(runtime.settings, request, incoming.method), cut, name, upstream, outgoing, headers, relay, held)
      : (held?.release(), renderError(new GatewayError("bad-request", refused, { headers })));
  // Under npm start's mount, the URLs the agent server builds for its UI get the mount back (mount-urls.ts).
  if (publicHost && request.strippedPrefix !== undefined && isUiRoute(incoming.method, request.upstreamPath)) {
    response = await withMountInUiUrls(response, request.url.host, request.strippedPrefix);
  }
  runtime.metrics.upstream({ upstream: name, status: response.status, ms: runtime.now() - started }, backgroundOf(c));
  return response;
}

/**
 * The upstream's answer to `outgoing`, with `headers` added, or the problem it failed with. The
 * timer bounds the wait for response headers only (`waitMs`): once they arrive it is cleared; when
 * it fires, the upstream call is aborted (`cut`) as the 504 is answered.
 */
async function answer(
  waitMs: number,
  cut: AbortController,
  name: UpstreamName,
  upstream: Upstream,
  outgoing: Request,
  headers: Readonly<Record<string, string>> | undefined,
  relay: SocketRelayOptions | undefined,
  held: HeldSlot | undefined,
): Promise<Response> {
  try {
    // On expiry the call is aborted after the deadline rejects, so the answer is the timeout, not the aborted call's failure.
    const response = await withDeadline(upstream.kind === "binding" ? upstream.fetcher.fetch(outgoing) : fetch(outgoing), waitMs, TIMED_OUT, () =>
      cut.abort(TIMED_OUT),
    );
    // An upstream's accepted socket is relayed, its client frames counted (websocket.ts); one the
    // gateway did not ask for (a plain request answered with a socket) is not handed on unread.
    if (response.webSocket) {
      if (relay) return relayedSocket(response, headers, held ? { ...relay, lost: held.lost, onEnd: () => held.release() } : relay);
      response.webSocket.accept();
      response.webSocket.close(1011, "not an upgrade the gateway relays");
      throw new Error("the upstream answered a request that was no WebSocket upgrade with a socket");
    }
    // The upstream's headers copied once, into the answer's own, and pruned there (a copy per Headers made costs every request).
    const body = held ? heldUntilEnd(response.body, held) : response.body;
    const answered = new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers, encodeBody: "manual" });
    pruneDownstreamHeaders(answered.headers, headers);
    return answered;
  } catch (error) {
    held?.release();
    const timedOut = error === TIMED_OUT;
    console.log(JSON.stringify({ event: timedOut ? "upstream_timeout" : "upstream_unreachable", upstream: name, error: String(error) }));
    // Returned, not thrown: the failure is measured as the upstream's answer (forward, RequestMetrics.upstream).
    return renderError(
      timedOut
        ? new GatewayError("upstream-timeout", `The ${name} upstream did not answer within ${waitMs} ms.`, { headers })
        : new GatewayError("upstream-unreachable", `The ${name} upstream could not be reached.`, { headers }),
    );
  }
}

/** A slot among an identity's open requests (a concurrency rule), held until the answer ends. */
export interface HeldSlot {
  /** Gives the slot back; idempotent. */
  release(): void;
  /** Settles when the slot lapsed (its lease could not be renewed): the answer may no longer go on. */
  readonly lost: Promise<void>;
}

/**
 * The upstream's body passed on chunk for chunk (an identity stream: nothing buffered or joined),
 * with the slot given back when it ends, fails, or the client goes (its cancel errors the pipe).
 * A lapsed slot cuts the stream: the client sees it end, as when the upstream closes it.
 */
function heldUntilEnd(body: ReadableStream | null, held: HeldSlot): ReadableStream | null {
  if (!body) {
    held.release();
    return null;
  }
  const { readable, writable } = new TransformStream();
  const cut = new AbortController();
  void held.lost.then(() => cut.abort(new Error("the stream's slot lapsed")));
  body
    .pipeTo(writable, { signal: cut.signal })
    .catch(() => undefined)
    .finally(() => held.release());
  return readable;
}

/**
 * What the gateway tells `name` about the client (docs/identity-data.md, "What each upstream
 * receives"): the address only to the upstreams FORWARD_CLIENT_ADDRESS lists; the public host as
 * `X-Forwarded-Host` to every upstream but an agent server at an origin, which copies each `x-*`
 * header of a request into the runs it stores and reads none of them (it builds its URLs from
 * `Host`). The emulator behind a service binding reads `X-Forwarded-*` and stores none.
 */
function forwardingPolicy(name: UpstreamName, upstream: Upstream, addressTo: ReadonlySet<UpstreamName>): ForwardingPolicy {
  return { clientAddress: addressTo.has(name), forwardedHost: !(name === "agent-server" && upstream.kind === "origin") };
}

/** The client's own Accept-Encoding: the edge's record of it where the edge rewrote the header, else the header. */
function clientAcceptEncoding(incoming: Request): string | null {
  const cf = incoming.cf as { clientAcceptEncoding?: unknown } | undefined;
  return typeof cf?.clientAcceptEncoding === "string" ? cf.clientAcceptEncoding : incoming.headers.get("accept-encoding");
}

/** What the timer rejects with: told apart from the upstream's own failures by identity. */
const TIMED_OUT = new Error("the upstream did not answer in time");

/** The upstream URL: its origin (and path), then the path and the query as the client sent them. */
function target(upstream: Upstream, request: GatewayRequest): string {
  return (upstream.kind === "origin" ? upstream.base : request.url.origin) + request.upstreamPath + request.url.search;
}
