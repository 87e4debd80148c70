import { Hono } from "hono";
import { setTimeout as sleep } from "node:timers/promises";

/**
 * The real server's custom routes (langgraph.json's `http.app`), mounted before its own API:
 * `GET /chunks?count=4&delay_ms=10` answers `text/plain` in `count` chunks (`chunk <n>\n`), the
 * first at once and each next one `delay_ms` later, so a test can time each chunk's arrival
 * direct and through the gateway. The body is written chunk by chunk on Node's response, with no
 * content-length and no compression, as a streaming model reply would be.
 */
export const app = new Hono();

app.get("/chunks", (c) => {
  const count = Math.min(Math.max(Number(c.req.query("count") ?? 4) || 0, 1), 100);
  const delay = Math.min(Math.max(Number(c.req.query("delay_ms") ?? 10) || 0, 0), 60_000);
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    async start(controller) {
      for (let n = 1; n <= count; n++) {
        if (n > 1) await sleep(delay);
        controller.enqueue(encoder.encode(`chunk ${n}\n`));
      }
      controller.close();
    },
  });
  return c.body(body, 200, { "content-type": "text/plain; charset=utf-8" });
});

/** What the server saw of the request: its method, path as received, and headers (a test reads what the gateway forwards). */
app.all("/echo-request/*", (c) => {
  const url = new URL(c.req.url);
  return c.json({ method: c.req.method, path: url.pathname, query: url.search, headers: Object.fromEntries(c.req.raw.headers) });
});
