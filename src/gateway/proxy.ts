import type { Context } from "hono";
import type { GatewayConfig, Upstream } from "./config.ts";
import { upstreamHeaders } from "./forwarded-headers.ts";
import { downstreamHeaders } from "./hop-by-hop.ts";
import { countUpstream } from "./metrics.ts";
import { problemResponse } from "./problem.ts";
import type { GatewayEnv, GatewayRequest } from "./types.ts";

/**
 * Forwards the request to its upstream on the canonical path and returns the upstream's response
 * with bodies streamed both ways (no buffering, so server-sent events flow as they are written).
 * The upstream request is built once (forwarded-headers.ts) and the response once, with `headers`
 * (the rate-limit headers) among its own. The timeout covers the wait for response headers only,
 * never a long stream after them; the client's abort ends the upstream call. Every answer,
 * failures included (400 for an invalid `Connection`, 502 unreachable, 504 timed out), carries
 * `headers` and is measured (metrics.ts).
 */
export async function forward(c: Context<GatewayEnv>, config: GatewayConfig, request: GatewayRequest, headers?: Readonly<Record<string, string>>): Promise<Response> {
  const started = Date.now();
  const response = await answer(c, config, request, headers);
  countUpstream(c, config, { upstream: request.upstream, status: response.status, ms: Date.now() - started });
  return response;
}

async function answer(c: Context<GatewayEnv>, config: GatewayConfig, request: GatewayRequest, headers: Readonly<Record<string, string>> | undefined): Promise<Response> {
  const name = request.upstream;
  const upstream = config.upstreams[name];
  const incoming = c.req.raw;
  const forwarded = upstreamHeaders(incoming.headers, request.url, request.edgeAddress);
  if (!forwarded.ok) return Response.json({ detail: forwarded.detail }, { status: 400, headers });

  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), config.upstreamTimeoutMs);
  // The client's own abort still ends the upstream call.
  incoming.signal?.addEventListener("abort", () => controller.abort(), { once: true });
  try {
    // The body is the client's stream itself: nothing is buffered.
    const outgoing = new Request(target(upstream, request), { method: incoming.method, headers: forwarded.headers, body: incoming.body, signal: controller.signal });
    const response = await untilAborted(upstream.kind === "binding" ? upstream.fetcher.fetch(outgoing) : fetch(outgoing), controller.signal);
    return new Response(response.body, { status: response.status, statusText: response.statusText, headers: downstreamHeaders(response.headers, headers) });
  } catch (error) {
    const timedOut = controller.signal.aborted;
    console.log(JSON.stringify({ event: timedOut ? "upstream_timeout" : "upstream_unreachable", upstream: name, error: String(error) }));
    return problemResponse(
      {
        title: timedOut ? "Upstream timed out" : "Upstream unreachable",
        status: timedOut ? 504 : 502,
        detail: timedOut ? `The ${name} upstream did not answer within ${config.upstreamTimeoutMs} ms.` : `The ${name} upstream could not be reached.`,
      },
      headers,
    );
  } finally {
    clearTimeout(timer);
  }
}

/** The upstream URL: its origin (and path), then the canonical path (which needs no encoding) and the query. */
function target(upstream: Upstream, request: GatewayRequest): string {
  return (upstream.kind === "origin" ? upstream.base : request.url.origin) + request.upstreamPath + request.url.search;
}

/** Settles with `work`, or rejects once `signal` aborts, even if `work` ignores the signal. */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    signal.addEventListener("abort", () => reject(signal.reason), { once: true });
    work.then(resolve, reject);
  });
}
