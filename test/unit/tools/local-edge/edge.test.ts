import http from "node:http";
import net from "node:net";
import { once } from "node:events";
import { describe, expect, it } from "vitest";
import { createLocalEdge } from "../../../../tools/local-edge/edge.ts";
import { closedPort, listen } from "./support.ts";
import { splitArguments, withLogLevel } from "../../../../tools/local-edge/main.ts";

/** A stand-in for wrangler dev: records each request's headers and lets the test drive the answer. */
async function upstream(handler: (req: http.IncomingMessage, res: http.ServerResponse) => void = (_, res) => res.end("ok")) {
  const seen: http.IncomingHttpHeaders[] = [];
  const port = await listen(http.createServer((req, res) => (seen.push(req.headers), handler(req, res))));
  return { seen, target: new URL(`http://127.0.0.1:${port}`) };
}

/** Sends raw bytes to the edge and returns everything it answers. */
async function rawHttp(port: number, request: string): Promise<string> {
  const socket = net.connect(port, "127.0.0.1");
  socket.end(request);
  let text = "";
  for await (const chunk of socket) text += chunk;
  return text;
}

describe("the local edge in front of wrangler dev", () => {
  it("sets CF-Connecting-IP from the client's socket and drops the client's own and wrangler's internal headers", async () => {
    const up = await upstream();
    const edge = await listen(createLocalEdge({ target: up.target }));
    const res = await fetch(`http://127.0.0.1:${edge}/runs/stats`, {
      headers: { "cf-connecting-ip": "9.9.9.9", "mf-original-url": "http://x/public/download", "x-api-key": "k" },
    });
    expect(await res.text()).toBe("ok");
    expect(up.seen[0]!["cf-connecting-ip"]).toBe("127.0.0.1");
    expect(up.seen[0]!["mf-original-url"]).toBeUndefined();
    expect(up.seen[0]!["x-api-key"]).toBe("k");
  });

  it("keeps connections alive both ways: a keep-alive client's requests share one connection to the gateway", async () => {
    const ports = new Set<number>();
    const up = await upstream((req, res) => (ports.add(req.socket.remotePort!), res.end("ok")));
    const edge = await listen(createLocalEdge({ target: up.target }));
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const clientSockets = new Set<net.Socket>();
    for (let i = 0; i < 5; i++) {
      const res = await new Promise<http.IncomingMessage>((resolve, reject) =>
        http.get({ host: "127.0.0.1", port: edge, path: "/runs/stats", agent }, resolve).on("error", reject),
      );
      expect(res.headers.connection).toBe("keep-alive");
      clientSockets.add(res.socket);
      res.resume();
      await once(res, "end");
    }
    agent.destroy();
    expect(clientSockets.size).toBe(1);
    expect(ports.size).toBe(1);
  });

  it("streams a response through as it is written", async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const up = await upstream((_, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write("event: tick\ndata: 0\n\n");
      // The end waits for the client to have read the first event: it cannot have been buffered.
      void released.then(() => res.end("event: tick\ndata: 1\n\n"));
    });
    const edge = await listen(createLocalEdge({ target: up.target }));
    const res = await fetch(`http://127.0.0.1:${edge}/feeds/live`);
    const reader = res.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe("event: tick\ndata: 0\n\n");
    release();
    let rest = "";
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) rest += new TextDecoder().decode(chunk.value);
    expect(rest).toBe("event: tick\ndata: 1\n\n");
  });

  it("answers a request it cannot parse with 400 {detail}", async () => {
    const up = await upstream();
    const edge = await listen(createLocalEdge({ target: up.target }));
    const answer = await rawHttp(edge, "FOO /runs/query HTTP/1.1\r\nHost: x\r\n\r\n");
    expect(answer).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(JSON.parse(answer.split("\r\n\r\n")[1]!)).toEqual({ detail: expect.stringContaining("Invalid HTTP request") });
    expect(up.seen).toHaveLength(0);
  });

  it("answers CONNECT with 405 {detail}", async () => {
    const up = await upstream();
    const edge = await listen(createLocalEdge({ target: up.target }));
    const answer = await rawHttp(edge, "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n");
    expect(answer).toMatch(/^HTTP\/1\.1 405 Method Not Allowed\r\n/);
    expect(JSON.parse(answer.split("\r\n\r\n")[1]!).detail).toContain("CONNECT is not served");
  });

  it("answers 502 {detail} when the gateway behind it is not up", async () => {
    const closed = await closedPort();
    const edge = await listen(createLocalEdge({ target: new URL(`http://127.0.0.1:${closed}`) }));
    const res = await fetch(`http://127.0.0.1:${edge}/anything`);
    expect(res.status).toBe(502);
    expect(((await res.json()) as { detail: string }).detail).toContain("could not be reached");
  });
});

describe("npm start's arguments", () => {
  it("runs wrangler dev at log level warn unless the user chose a level (an option or WRANGLER_LOG)", () => {
    expect(withLogLevel(["--env", "us"], {})).toEqual(["--env", "us", "--log-level", "warn"]);
    expect(withLogLevel(["--env", "us", "--log-level", "info"], {})).toEqual(["--env", "us", "--log-level", "info"]);
    expect(withLogLevel(["--log-level=debug"], {})).toEqual(["--log-level=debug"]);
    expect(withLogLevel([], { WRANGLER_LOG: "info" })).toEqual([]);
  });

  it("keeps --port and --ip for the edge and passes everything else to wrangler dev", () => {
    expect(splitArguments(["--env", "us", "--port", "18787", "--ip=0.0.0.0", "--var", "A:b"])).toEqual({
      port: 18787,
      ip: "0.0.0.0",
      wrangler: ["--env", "us", "--var", "A:b"],
    });
    expect(splitArguments(["--port=9000"])).toMatchObject({ port: 9000, ip: "127.0.0.1" });
    expect(splitArguments([])).toMatchObject({ port: 8787, ip: "127.0.0.1" });
    expect(() => splitArguments(["--port", "http"])).toThrow(/--port must be a port number/);
    expect(() => splitArguments(["--ip"])).toThrow(/--ip needs a value/);
    expect(splitArguments(["--private-port", "18102", "--env", "us"])).toEqual({ port: 8787, ip: "127.0.0.1", privatePort: 18102, wrangler: ["--env", "us"] });
    expect(() => splitArguments(["--private-port=x"])).toThrow(/--private-port must be a port number/);
  });
});
