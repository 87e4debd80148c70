import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import { proxy } from "hono/proxy";
import { gatewayConfig } from "./config.ts";
import { upstreamHeaders } from "./forwarded-headers.ts";
import { problemResponse } from "./problem.ts";
import type { GatewayEnv } from "./types.ts";

/**
 * Forwards the request to its upstream on the canonical path and returns the upstream's response
 * with bodies streamed both ways (no buffering, so server-sent events flow as they are written).
 * Hono's proxy helper strips hop-by-hop headers, including those named in `Connection`. The
 * timeout covers the wait for response headers only, never a long stream after them.
 */
export async function forward(c: Context<GatewayEnv>): Promise<Response> {
  const config = gatewayConfig(c.env);
  const name = c.var.upstream;
  const upstream = config.upstreams[name];
  const incoming = c.var.url;
  const base = upstream.kind === "origin" ? upstream.origin : incoming;
  const target = new URL(base.origin);
  target.pathname = joinPath(upstream.kind === "origin" ? upstream.origin.pathname : "/", c.var.upstreamPath);
  target.search = incoming.search;

  // Forwarding headers are set on a copy of the request, which Hono's proxy then strips of
  // hop-by-hop headers (passing `headers` to it instead would bypass that stripping).
  const raw = new Request(c.req.raw, { headers: upstreamHeaders(c.req.raw.headers, incoming) });

  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), config.upstreamTimeoutMs);
  // The client's own abort still ends the upstream call.
  c.req.raw.signal?.addEventListener("abort", () => controller.abort(), { once: true });
  try {
    return await proxy(target, {
      raw,
      signal: controller.signal,
      strictConnectionProcessing: true,
      customFetch: (request: Request) =>
        untilAborted(upstream.kind === "binding" ? upstream.fetcher.fetch(request) : fetch(request), controller.signal),
    });
  } catch (error) {
    if (error instanceof HTTPException) throw error;
    const timedOut = controller.signal.aborted;
    console.log(JSON.stringify({ event: timedOut ? "upstream_timeout" : "upstream_unreachable", upstream: name, error: String(error) }));
    throw new HTTPException(timedOut ? 504 : 502, {
      res: problemResponse({
        title: timedOut ? "Upstream timed out" : "Upstream unreachable",
        status: timedOut ? 504 : 502,
        detail: timedOut
          ? `The ${name} upstream did not answer within ${config.upstreamTimeoutMs} ms.`
          : `The ${name} upstream could not be reached.`,
      }),
    });
  } finally {
    clearTimeout(timer);
  }
}

/** Settles with `work`, or rejects once `signal` aborts, even if `work` ignores the signal. */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    signal.addEventListener("abort", () => reject(signal.reason), { once: true });
    work.then(resolve, reject);
  });
}

function joinPath(basePath: string, path: string): string {
  return basePath.replace(/\/+$/, "") + path;
}
