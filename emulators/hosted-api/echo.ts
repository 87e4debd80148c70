import { WorkerEntrypoint } from "cloudflare:workers";
import { encodeEvent } from "../shared/sse.ts";
import { acceptEchoSocket } from "./websocket-echo.ts";

/** Which upstream this binding stands in for (wrangler.toml `props`). */
interface EchoProps {
  upstream?: string;
}

const SSE_DELAY_MS = 50;

/**
 * The local stand-in for the hosted API (and, until their emulators land, the other upstreams):
 * answers every path, so every rule can be exercised end to end, and shows what it received.
 * - a request with a body gets that body streamed back unchanged;
 * - `Accept: text/event-stream` gets `?events=N` (default 3) server-sent events, spaced in time,
 *   so tests can see events arrive before the stream ends;
 * - a WebSocket upgrade (`Upgrade: websocket`) is accepted and every frame echoed (websocket-echo.ts);
 * - anything else gets a JSON description of the request.
 * `x-echo-*` response headers carry the upstream name, method and path either way.
 */
export class HostedApiEcho extends WorkerEntrypoint<unknown, EchoProps> {
  override async fetch(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const upstream = this.ctx.props?.upstream ?? "hosted-api";
    const headers = new Headers({
      "x-echo-upstream": upstream,
      "x-echo-method": request.method,
      "x-echo-path": url.pathname,
    });
    if (request.headers.get("upgrade")?.toLowerCase() === "websocket") return acceptEchoSocket(headers);
    if (request.headers.get("accept")?.includes("text/event-stream")) {
      headers.set("content-type", "text/event-stream");
      headers.set("cache-control", "no-cache");
      return new Response(eventStream(Number(url.searchParams.get("events") ?? 3)), { headers });
    }
    if (request.body) {
      headers.set("content-type", request.headers.get("content-type") ?? "application/octet-stream");
      // Piped, not handed on: the body is then in use as this answer is made, so nothing around
      // this Worker (wrangler dev drains a request body it finds unused) reads it a second time.
      const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
      this.ctx.waitUntil(request.body.pipeTo(writable).catch(() => undefined));
      return new Response(readable, { headers });
    }
    headers.set("content-type", "application/json");
    return new Response(
      JSON.stringify({
        upstream,
        method: request.method,
        path: url.pathname,
        query: url.search,
        headers: Object.fromEntries(request.headers),
      }),
      { headers },
    );
  }
}

// Produced as the reader pulls (not with the emulators' streamEvents): an echo has nothing to
// finish for a client that left. The wire format is the emulators' one.
function eventStream(events: number): ReadableStream<Uint8Array> {
  let sent = 0;
  return new ReadableStream({
    async pull(controller) {
      if (sent > 0) await new Promise((resolve) => setTimeout(resolve, SSE_DELAY_MS));
      controller.enqueue(encodeEvent({ event: "tick", data: { n: sent } }));
      if (++sent >= events) controller.close();
    },
  });
}
