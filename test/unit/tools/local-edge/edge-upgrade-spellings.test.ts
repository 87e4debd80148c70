// What the local edge does with each spelling of `Upgrade` (docs/rules.md, "WebSockets", "What is an
// upgrade"), as the gateway reads it (src/core/rules/websocket-upgrade.ts): exactly a WebSocket
// upgrade on a GET without a body is relayed as a socket; any other `Upgrade` goes on as plain HTTP,
// its `Upgrade` dropped; a WebSocket upgrade on another method or with a body is refused 400 before
// anything reaches the gateway. Every answer stamped as any request is (the socket's address, the secret).
import http from "node:http";
import { describe, expect, it } from "vitest";
import { WebSocketServer } from "ws";
import { LOCAL_EDGE_HEADER } from "../../../../src/gateway/local-edge-header.ts";
import { createLocalEdge } from "../../../../tools/local-edge/edge.ts";
import { listen } from "./support.ts";
import { maskedTextFrame, rawConnection, serverTextFrame } from "./raw-client.ts";

interface Seen {
  readonly method: string;
  readonly url: string;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: string;
}

/**
 * A stand-in for wrangler dev that records what reaches it: each plain request whole (answered
 * 200 with its number), each WebSocket upgrade's request line and headers (its frames echoed).
 */
async function recordingUpstream() {
  const requests: Seen[] = [];
  const upgrades: Array<Omit<Seen, "body">> = [];
  const server = http.createServer(async (req, res) => {
    let body = "";
    for await (const chunk of req) body += chunk;
    requests.push({ method: req.method!, url: req.url!, headers: req.headers, body });
    res.setHeader("content-type", "application/json");
    res.end(JSON.stringify({ answered: requests.length }));
  });
  new WebSocketServer({ server }).on("connection", (socket, req) => {
    upgrades.push({ method: req.method!, url: req.url!, headers: req.headers });
    socket.on("message", (data, isBinary) => socket.send(data, { binary: isBinary }));
    // Bytes that are not frames (a body relayed after a 101) end the socket; the test sees the rest.
    socket.on("error", () => undefined);
  });
  const port = await listen(server);
  return { requests, upgrades, target: new URL(`http://127.0.0.1:${port}`) };
}

async function edgeInFront() {
  const up = await recordingUpstream();
  const port = await listen(createLocalEdge({ target: up.target, secret: "session-secret" }));
  return { up, port };
}

/** A request's head: its line, the headers every case sends (a forged address among them), then `lines`. */
function head(method: string, path: string, lines: readonly string[]): string {
  return [`${method} ${path} HTTP/1.1`, "Host: gateway.test", "x-api-key: k", "cf-connecting-ip: 9.9.9.9", ...lines, "", ""].join("\r\n");
}

/** What the gateway must see on every request besides the case's own headers. */
const STAMPED = { host: "gateway.test", "x-api-key": "k", "cf-connecting-ip": "127.0.0.1", [LOCAL_EDGE_HEADER]: "session-secret" };

const WEBSOCKET_HANDSHAKE = ["Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==", "Sec-WebSocket-Version: 13"];

describe("an Upgrade that is not exactly a WebSocket upgrade goes on as plain HTTP", () => {
  // [what it is, method, the request's own header lines, its body as sent, the body the gateway reads, the gateway's extra headers]
  it.each([
    ["websocket, h2c", "GET", ["Connection: Upgrade", "Upgrade: websocket, h2c"], "", "", {}],
    [
      "h2c alone",
      "GET",
      ["Connection: Upgrade, HTTP2-Settings", "Upgrade: h2c", "HTTP2-Settings: AAMAAABkAARAAAAAAAIAAAAA"],
      "",
      "",
      {
        connection: "HTTP2-Settings",
        "http2-settings": "AAMAAABkAARAAAAAAAIAAAAA",
      },
    ],
    [
      "websocket/13",
      "GET",
      ["Connection: Upgrade", "Upgrade: websocket/13", ...WEBSOCKET_HANDSHAKE],
      "",
      "",
      {
        "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==",
        "sec-websocket-version": "13",
      },
    ],
    [
      "two Upgrade lines",
      "GET",
      ["Connection: Upgrade", "Upgrade: websocket", "Upgrade: websocket", ...WEBSOCKET_HANDSHAKE],
      "",
      "",
      {
        "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==",
        "sec-websocket-version": "13",
      },
    ],
    ["foo", "GET", ["Connection: keep-alive, Upgrade", "Upgrade: foo"], "", "", { connection: "keep-alive" }],
    ["h2c without Connection: Upgrade", "GET", ["Upgrade: h2c"], "", "", {}],
    [
      "h2c on a POST with a body",
      "POST",
      ["Connection: Upgrade", "Upgrade: h2c", "Content-Length: 7"],
      '{"a":1}',
      '{"a":1}',
      {
        "content-length": "7",
      },
    ],
    [
      "foo on a PUT with a chunked body",
      "PUT",
      ["Connection: Upgrade", "Upgrade: foo", "Transfer-Encoding: chunked"],
      "5\r\nhello\r\n0\r\n\r\n",
      "hello",
      {
        "transfer-encoding": "chunked",
      },
    ],
  ] as const)(
    "%s: the gateway gets the request without Upgrade, the client its answer, and the connection stays usable",
    async (_, method, lines, sent, read, extra) => {
      const { up, port } = await edgeInFront();
      const client = await rawConnection(port);
      client.write(head(method, "/threads/t/runs", lines) + sent);

      const answer = await client.response();
      expect({ status: answer.status, body: answer.body.toString() }).toEqual({ status: 200, body: '{"answered":1}' });
      expect(up.requests).toEqual([{ method, url: "/threads/t/runs", body: read, headers: { connection: "keep-alive", ...STAMPED, ...extra } }]);
      expect(up.upgrades).toEqual([]);

      // The next request on the same connection is read as a request: nothing of the first was left over.
      client.write(head("GET", "/after", []));
      expect((await client.response()).body.toString()).toBe('{"answered":2}');
      expect(up.requests[1]).toMatchObject({ method: "GET", url: "/after", body: "" });
    },
  );
});

describe("a WebSocket upgrade on another method than GET, or with a body, is refused 400 before the gateway", () => {
  // [what it is, method, the request's own header lines, its body, what the detail says]
  it.each([
    ["POST", "POST", ["Connection: Upgrade", "Upgrade: websocket", ...WEBSOCKET_HANDSHAKE], "", /must use GET.*not POST/],
    ["PUT with a body", "PUT", ["Connection: Upgrade", "Upgrade: WebSocket", "Content-Length: 2", ...WEBSOCKET_HANDSHAKE], "{}", /must use GET.*not PUT/],
    ["DELETE", "DELETE", ["Connection: Upgrade", "Upgrade: websocket", ...WEBSOCKET_HANDSHAKE], "", /must use GET.*not DELETE/],
    ["OPTIONS", "OPTIONS", ["Connection: Upgrade", "Upgrade: websocket", ...WEBSOCKET_HANDSHAKE], "", /must use GET.*not OPTIONS/],
    [
      "GET with Content-Length",
      "GET",
      ["Connection: Upgrade", "Upgrade: websocket", "Content-Length: 5", ...WEBSOCKET_HANDSHAKE],
      "hello",
      /body.*Content-Length: 5/,
    ],
    [
      "GET with a chunked body",
      "GET",
      ["Connection: Upgrade", "Upgrade: websocket", "Transfer-Encoding: chunked", ...WEBSOCKET_HANDSHAKE],
      "5\r\nhello\r\n0\r\n\r\n",
      /body.*Transfer-Encoding: chunked/,
    ],
    ["GET without Connection: Upgrade", "GET", ["Upgrade: websocket", ...WEBSOCKET_HANDSHAKE], "", /must send Connection: Upgrade/],
    ["GET with Connection: keep-alive", "GET", ["Connection: keep-alive", "Upgrade: websocket", ...WEBSOCKET_HANDSHAKE], "", /must send Connection: Upgrade/],
    [
      "GET with an empty chunked body",
      "GET",
      ["Connection: Upgrade", "Upgrade: WEBSOCKET", "Transfer-Encoding: chunked", ...WEBSOCKET_HANDSHAKE],
      "0\r\n\r\n",
      /body.*Transfer-Encoding: chunked/,
    ],
  ] as const)("%s: 400 {detail} saying why, the connection closed, nothing sent on", async (_, method, lines, body, detail) => {
    const { up, port } = await edgeInFront();
    const client = await rawConnection(port);
    client.write(head(method, "/threads/t/stream", lines) + body);

    const answer = await client.response();
    expect(answer.status).toBe(400);
    expect(answer.headers["content-type"]).toEqual(["application/json"]);
    expect(JSON.parse(answer.body.toString())).toEqual({ detail: expect.stringMatching(detail) });
    await client.closed;

    // A request sent after the refusal reaches the gateway first and alone: the refused one never did.
    const probe = await rawConnection(port);
    probe.write(head("GET", "/probe", []));
    expect((await probe.response()).status).toBe(200);
    expect(up.requests.map((r) => r.url)).toEqual(["/probe"]);
    expect(up.upgrades).toEqual([]);
  });
});

describe("exactly a WebSocket upgrade on a GET without a body is relayed as a socket", () => {
  it.each([
    ["websocket", ["Connection: Upgrade", "Upgrade: websocket"], "websocket"],
    ["WebSocket", ["Connection: keep-alive, Upgrade", "Upgrade: WebSocket"], "WebSocket"],
    ["spaces around it", ["Connection: upgrade", "Upgrade: \t WEBSOCKET \t"], "WEBSOCKET"],
    ["Content-Length: 0", ["Connection: Upgrade", "Upgrade: websocket", "Content-Length: 0"], "websocket"],
  ] as const)("%s: 101 from the gateway, stamped, and frames both ways", async (_, lines, upgrade) => {
    const { up, port } = await edgeInFront();
    const client = await rawConnection(port);
    client.write(head("GET", "/threads/t/stream", [...lines, ...WEBSOCKET_HANDSHAKE]));

    const answer = await client.response();
    expect(answer.status).toBe(101);
    expect(answer.headers["sec-websocket-accept"]).toEqual(["s3pPLMBiTxaQ9kYGzzhZRbK+xOo="]);
    expect(up.upgrades).toEqual([{ method: "GET", url: "/threads/t/stream", headers: expect.objectContaining({ ...STAMPED, upgrade }) }]);
    expect(up.requests).toEqual([]);

    client.write(maskedTextFrame("hello"));
    expect(await client.bytes(serverTextFrame("hello").length)).toEqual(serverTextFrame("hello"));
  });
});
