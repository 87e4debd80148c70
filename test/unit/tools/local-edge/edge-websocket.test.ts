// The local edge passes WebSocket upgrades through (issue 31) with the client address taken from
// the socket and the session's secret added (issue 32, finding 8), and drops a client's own.
import http from "node:http";
import { once } from "node:events";
import { afterEach, describe, expect, it } from "vitest";
import WebSocket, { WebSocketServer } from "ws";
import { LOCAL_EDGE_HEADER } from "../../../../src/gateway/local-edge-header.ts";
import { createLocalEdge } from "../../../../tools/local-edge/edge.ts";
import { closedPort, listen } from "./support.ts";

const sockets: WebSocket[] = [];
afterEach(() => {
  for (const socket of sockets.splice(0)) socket.terminate();
});

/** A stand-in for wrangler dev that accepts any upgrade and echoes frames, closing as the client asks. */
async function echoUpstream() {
  const upgrades: http.IncomingHttpHeaders[] = [];
  const requests: http.IncomingHttpHeaders[] = [];
  const server = http.createServer((req, res) => (requests.push(req.headers), res.end("ok")));
  const wss = new WebSocketServer({ server });
  wss.on("connection", (socket, req) => {
    upgrades.push(req.headers);
    socket.on("message", (data, isBinary) => {
      const text = isBinary ? undefined : data.toString();
      const asked = text && /^close (\d{4}) ?(.*)$/s.exec(text);
      if (asked) socket.close(Number(asked[1]), asked[2]);
      // The connection fails under the socket (a reset, no close frame), as a crashed server's would.
      else if (text === "reset") req.socket.resetAndDestroy();
      else socket.send(data, { binary: isBinary });
    });
    socket.on("close", (code, reason) => socket.readyState === WebSocket.CLOSING || socket.close(code === 1005 ? undefined : code, reason));
  });
  const port = await listen(server);
  return { upgrades, requests, target: new URL(`http://127.0.0.1:${port}`) };
}

/** Opens a client socket and queues what it receives. */
async function connect(url: string, headers: Record<string, string> = {}) {
  const socket = new WebSocket(url, { headers });
  sockets.push(socket);
  const frames: Array<{ data: Buffer; isBinary: boolean }> = [];
  const waiting: Array<() => void> = [];
  socket.on("message", (data: Buffer, isBinary) => (frames.push({ data, isBinary }), waiting.shift()?.()));
  const closed = new Promise<{ code: number; reason: string }>((resolve) => socket.on("close", (code, reason) => resolve({ code, reason: reason.toString() })));
  await once(socket, "open");
  const next = async () => {
    if (frames.length === 0) await new Promise<void>((resolve) => waiting.push(resolve));
    return frames.shift()!;
  };
  return { socket, next, closed };
}

describe("WebSockets through the local edge", () => {
  it("passes an upgrade through with CF-Connecting-IP from the socket and the session's secret, the client's own dropped", async () => {
    const up = await echoUpstream();
    const edge = await listen(createLocalEdge({ target: up.target, secret: "session-secret" }));
    const client = await connect(`ws://127.0.0.1:${edge}/threads/t/stream/events`, {
      "cf-connecting-ip": "9.9.9.9",
      [LOCAL_EDGE_HEADER]: "forged",
      "x-api-key": "k",
    });
    expect(up.upgrades[0]!["cf-connecting-ip"]).toBe("127.0.0.1");
    expect(up.upgrades[0]![LOCAL_EDGE_HEADER]).toBe("session-secret");
    expect(up.upgrades[0]!["x-api-key"]).toBe("k");
    client.socket.close(1000, "");
    await client.closed;
  });

  it("stamps plain requests with the secret too, replacing a client's", async () => {
    const up = await echoUpstream();
    const edge = await listen(createLocalEdge({ target: up.target, secret: "session-secret" }));
    await (await fetch(`http://127.0.0.1:${edge}/runs/stats`, { headers: { [LOCAL_EDGE_HEADER]: "forged" } })).text();
    expect(up.requests[0]![LOCAL_EDGE_HEADER]).toBe("session-secret");
  });

  it("answers an upgrade 502 {detail} when the gateway behind it is not up", async () => {
    const closed = await closedPort();
    const edge = await listen(createLocalEdge({ target: new URL(`http://127.0.0.1:${closed}`) }));
    // Not kept for afterEach: the refused handshake is ended here (ws leaves it to this listener).
    const socket = new WebSocket(`ws://127.0.0.1:${edge}/sessions/live`);
    const [req, res] = (await once(socket, "unexpected-response")) as [http.ClientRequest, http.IncomingMessage];
    let body = "";
    for await (const chunk of res) body += chunk;
    req.destroy();
    expect(res.statusCode).toBe(502);
    expect(JSON.parse(body).detail).toContain("could not be reached");
  });

  it("ends the client's socket when the gateway's side fails after the upgrade, writing nothing more into it", async () => {
    const up = await echoUpstream();
    const edge = await listen(createLocalEdge({ target: up.target }));
    const client = await connect(`ws://127.0.0.1:${edge}/sessions/live`);
    const errors: Error[] = [];
    client.socket.on("error", (error) => errors.push(error));
    client.socket.send("reset");
    // An abnormal close, never a frame error: an HTTP 502 written into the socket would be one.
    expect((await client.closed).code).toBe(1006);
    expect(errors).toEqual([]);
  });

  it("relays text and binary frames both ways, and closes with their codes and reasons from either side", async () => {
    const up = await echoUpstream();
    const edge = await listen(createLocalEdge({ target: up.target }));
    const client = await connect(`ws://127.0.0.1:${edge}/sessions/live`);
    client.socket.send("hello");
    expect(await client.next()).toEqual({ data: Buffer.from("hello"), isBinary: false });
    client.socket.send(Buffer.from([0, 1, 254, 255]));
    expect(await client.next()).toEqual({ data: Buffer.from([0, 1, 254, 255]), isBinary: true });
    client.socket.close(4000, "client going");
    expect(await client.closed).toEqual({ code: 4000, reason: "client going" });

    const second = await connect(`ws://127.0.0.1:${edge}/sessions/live`);
    second.socket.send("close 4404 thread not found");
    expect(await second.closed).toEqual({ code: 4404, reason: "thread not found" });
  });
});
