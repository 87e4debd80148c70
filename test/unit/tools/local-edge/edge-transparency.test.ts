// The local edge passes an answer on as the gateway sends it: its headers as soon as they come
// (not with the first body byte), and no compression asked of wrangler dev behind it.
import http from "node:http";
import { describe, expect, it } from "vitest";
import { createLocalEdge } from "../../../../tools/local-edge/edge.ts";
import { listen } from "./support.ts";

/** A stand-in for wrangler dev: records each request's headers and lets the test drive the answer. */
async function upstream(handler: (req: http.IncomingMessage, res: http.ServerResponse) => void) {
  const seen: http.IncomingHttpHeaders[] = [];
  const port = await listen(http.createServer((req, res) => (seen.push(req.headers), handler(req, res))));
  return { seen, target: new URL(`http://127.0.0.1:${port}`) };
}

describe("the local edge passes answers on as they come", () => {
  it("sends the response headers before any body byte: a long poll's subscription is answered at once", async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const up = await upstream((_, res) => {
      // Headers now, the body only once the client has seen them.
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.flushHeaders();
      void released.then(() => res.end("event: end\ndata: 1\n\n"));
    });
    const edge = await listen(createLocalEdge({ target: up.target }));
    // Resolves at the headers: without them, the body (held until release) never comes and the test times out.
    const res = await fetch(`http://127.0.0.1:${edge}/threads/x/stream/events`, { method: "POST", body: "{}" });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/event-stream");
    release();
    expect(await res.text()).toBe("event: end\ndata: 1\n\n");
  });

  it("sends a 204's and a HEAD's headers without waiting for a body that never comes", async () => {
    const up = await upstream((req, res) => {
      res.writeHead(req.method === "HEAD" ? 200 : 204, { "x-seen": "1" });
      res.end();
    });
    const edge = await listen(createLocalEdge({ target: up.target }));
    const deleted = await fetch(`http://127.0.0.1:${edge}/threads/x`, { method: "DELETE" });
    expect([deleted.status, deleted.headers.get("x-seen")]).toEqual([204, "1"]);
    const head = await fetch(`http://127.0.0.1:${edge}/ok`, { method: "HEAD" });
    expect([head.status, head.headers.get("x-seen")]).toEqual([200, "1"]);
  });

  it("asks wrangler dev for no compression: Accept-Encoding stays with the edge, whatever the client accepts", async () => {
    const up = await upstream((_, res) => res.end("ok"));
    const edge = await listen(createLocalEdge({ target: up.target }));
    const res = await fetch(`http://127.0.0.1:${edge}/chunks`, { headers: { "accept-encoding": "gzip, deflate, br" } });
    expect(await res.text()).toBe("ok");
    expect(up.seen[0]!["accept-encoding"]).toBeUndefined();
  });
});

describe("the gateway's requests for the public URL, meant for an agent server's origin (AGENT_SERVER_HOST=public)", () => {
  const SECRET = "session-secret-of-the-test";

  it("go to the origin they name with the public Host, the override and the secret removed", async () => {
    const wrangler = await upstream((_, res) => res.end("wrangler"));
    const origin = await upstream((req, res) => res.end(`origin saw ${req.headers.host}`));
    const edge = await listen(createLocalEdge({ target: wrangler.target, secret: SECRET }));
    const res = await fetch(`http://127.0.0.1:${edge}/ui/agent`, {
      method: "POST",
      headers: { "x-tollgate-resolve-override": origin.target.origin, "x-tollgate-local-edge": SECRET, "x-kept": "1" },
      body: "{}",
    });
    expect(await res.text()).toBe(`origin saw 127.0.0.1:${edge}`);
    expect(wrangler.seen).toHaveLength(0);
    expect(origin.seen[0]!["x-kept"]).toBe("1");
    expect(origin.seen[0]!["x-tollgate-resolve-override"]).toBeUndefined();
    expect(origin.seen[0]!["x-tollgate-local-edge"]).toBeUndefined();
  });

  it("without the session's secret are a client's like any other: sent to the gateway, never to the origin", async () => {
    const wrangler = await upstream((_, res) => res.end("wrangler"));
    const origin = await upstream((_, res) => res.end("origin"));
    const edge = await listen(createLocalEdge({ target: wrangler.target, secret: SECRET }));
    for (const sent of ["wrong-secret-of-the-same-size", undefined]) {
      const res = await fetch(`http://127.0.0.1:${edge}/ui/agent`, {
        headers: { "x-tollgate-resolve-override": origin.target.origin, ...(sent && { "x-tollgate-local-edge": sent }) },
      });
      expect(await res.text()).toBe("wrangler");
    }
    expect(origin.seen).toHaveLength(0);
  });
});
