// `npm start` as a user runs it (the local edge in front of wrangler dev, the emulator Workers
// bound): WebSockets open through the edge and echo frames both ways (issue 31), an exhausted
// counter refuses an upgrade with 429 before any 101, and wrangler's private port answers no one
// but the edge (issue 32, finding 8). The upstream is the hosted-API echo, which accepts any
// upgrade (emulators/hosted-api/websocket-echo.ts).
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client, ProtocolWebSocketTransportAdapter } from "langgraph-sdk-v1";
import WebSocket from "ws";
import { cutAfterFirstValues } from "../../../support/sse-cut.ts";
import { REPO_ROOT } from "../../support/paths.ts";

// In this test's own range, apart from 8787 and from other local runs.
const EDGE_PORT = 18110;
const PRIVATE_PORT = 18111;
const EDGE = `127.0.0.1:${EDGE_PORT}`;

let child: ChildProcess | undefined;
let output = "";
/** All npm start printed until it was ready. */
let startup = "";
const state = mkdtempSync(join(tmpdir(), "tollgate-npm-start-"));

beforeAll(async () => {
  // Its own process group, so the whole tree (npm, the edge, wrangler, workerd) stops with it.
  child = spawn("npm", ["start", "--", "--port", String(EDGE_PORT), "--private-port", String(PRIVATE_PORT), "--persist-to", state], {
    cwd: REPO_ROOT,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const ready = new Promise<void>((resolve, reject) => {
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes(`tollgate is ready on http://${EDGE}`)) resolve();
    };
    child!.stdout!.on("data", read);
    child!.stderr!.on("data", read);
    child!.once("exit", (code) => reject(new Error(`npm start exited (${code}) before it was ready:\n${output}`)));
  });
  await ready;
  startup = output;
}, 180_000);

afterAll(async () => {
  if (child?.pid !== undefined) {
    if (child.exitCode === null) {
      const exited = once(child, "exit");
      process.kill(-child.pid, "SIGTERM");
      await exited;
    }
    // npm is gone; the edge, wrangler and workerd (its group) finish shutting down before the
    // state directory is removed under them.
    while (groupAlive(child.pid)) await sleep(100);
  }
  rmSync(state, { recursive: true, force: true });
}, 60_000);

/** Whether any process of the group is still running (signal 0 only asks). */
function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

/** A client socket through the edge, its frames queued; rejects with the status of a refused upgrade. */
async function connect(path: string, headers: Record<string, string> = {}) {
  const socket = new WebSocket(`ws://${EDGE}${path}`, { headers });
  const frames: Array<{ data: Buffer; isBinary: boolean }> = [];
  const waiting: Array<() => void> = [];
  socket.on("message", (data: Buffer, isBinary) => (frames.push({ data, isBinary }), waiting.shift()?.()));
  const closed = new Promise<{ code: number; reason: string }>((resolve) => socket.on("close", (code, reason) => resolve({ code, reason: reason.toString() })));
  let res!: http.IncomingMessage;
  socket.once("upgrade", (upgraded) => (res = upgraded));
  // Every listener is in place before anything is awaited: `open` follows `upgrade` at once.
  await new Promise<void>((resolve, reject) => {
    socket.once("open", resolve);
    socket.once("unexpected-response", (_req, refused) => reject(Object.assign(new Error(`upgrade refused: ${refused.statusCode}`), { res: refused })));
    socket.once("error", reject);
  });
  const next = async () => {
    if (frames.length === 0) await new Promise<void>((resolve) => waiting.push(resolve));
    return frames.shift()!;
  };
  return { socket, res, next, closed };
}

/** The response to an upgrade the gateway refused, with its body. */
async function refusedUpgrade(path: string, headers: Record<string, string>) {
  const error = await connect(path, headers).then(
    () => undefined,
    (e: Error & { res?: http.IncomingMessage }) => e,
  );
  expect(error?.res).toBeDefined();
  const res = error!.res!;
  let body = "";
  for await (const chunk of res) body += chunk;
  return { status: res.statusCode, headers: res.headers, body };
}

const key = () => `npm-start-${Math.random().toString(36).slice(2)}`;

describe("npm start: its start", () => {
  it("prints no warning: nothing a newcomer would read as broken (wrangler's and the gateway's alike)", () => {
    expect(startup).toContain("tollgate is ready on");
    expect(startup.replace(/\x1b\[[0-9;]*m/g, "")).not.toMatch(/WARNING|\[wrangler:warn\]/);
  });
});

describe("npm start: WebSockets through the local edge", () => {
  it("opens a socket answered 101 with its RateLimit headers, echoes text and binary frames, and passes closes both ways", async () => {
    const client = await connect("/sessions/live", { "x-api-key": key() });
    expect(client.res.statusCode).toBe(101);
    expect(client.res.headers["ratelimit-policy"]).toMatch(/^"default-key";/);
    client.socket.send("hello");
    expect(await client.next()).toEqual({ data: Buffer.from("hello"), isBinary: false });
    client.socket.send(Buffer.from([0, 1, 2, 254, 255]));
    expect(await client.next()).toEqual({ data: Buffer.from([0, 1, 2, 254, 255]), isBinary: true });
    client.socket.close(4000, "client going");
    expect(await client.closed).toEqual({ code: 4000, reason: "client going" });

    const second = await connect("/sessions/live", { "x-api-key": key() });
    second.socket.send("close 4404 thread not found");
    expect(await second.closed).toEqual({ code: 4404, reason: "thread not found" });
  });

  it("counts a socket without a key under the IP rules of the socket's address, whatever address the client claims", async () => {
    const client = await connect("/sessions/live", { "cf-connecting-ip": "9.9.9.9" });
    expect(client.res.headers["ratelimit-policy"]).toMatch(/^"public-ip";/);
    client.socket.close(1000, "");
    await client.closed;
  });

  it("refuses an upgrade on an exhausted counter with 429, Retry-After and the problem body, before any 101", async () => {
    const apiKey = key();
    // Row 28 (GET /runs/stats by key) allows 1 per 10 s in the US: one request exhausts it.
    const first = await fetch(`http://${EDGE}/runs/stats`, { headers: { "x-api-key": apiKey } });
    expect(first.status).toBe(200);
    await first.text();
    const refused = await refusedUpgrade("/runs/stats", { "x-api-key": apiKey });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers["retry-after"])).toBeGreaterThan(0);
    expect(refused.headers["ratelimit"]).toMatch(/^"runs-stats-key";r=0;/);
    expect(JSON.parse(refused.body)).toMatchObject({ status: 429 });
  });
});

describe("npm start: the official client 1.15 over WebSocket", () => {
  const apiUrl = `http://${EDGE}/agent-server`;
  const contents = (values: any): string[] => (values?.messages ?? []).map((m: { content: string }) => m.content);

  it("runs a graph to its end over a socket its Node factory keys (counted by key)", async () => {
    const apiKey = key();
    const client = new Client({ apiUrl, apiKey, callerOptions: { maxRetries: 0 } });
    const thread = await client.threads.create();
    const upgrades: http.IncomingMessage[] = [];
    const transport = new ProtocolWebSocketTransportAdapter({
      apiUrl,
      webSocketFactory: (url: string) => {
        const socket = new WebSocket(url, { headers: { "x-api-key": apiKey } });
        socket.on("upgrade", (res) => upgrades.push(res));
        return socket as unknown as globalThis.WebSocket;
      },
    });
    const stream = client.threads.stream(thread.thread_id, { assistantId: "agent", transport });
    await stream.run.start({ input: { messages: [{ role: "user", content: "hello npm start" }] } });
    expect(contents(await stream.output)).toEqual(["hello npm start", "you said: hello npm start"]);
    await stream.close();
    expect(upgrades.map((res) => res.headers["ratelimit-policy"])).toEqual([expect.stringMatching(/^"agent-server-default-key";/)]);
  });

  it("runs a graph to its end over its browser-safe socket (no header: counted by address)", async () => {
    // A browser's client: no key (the browser-safe transport refuses any default header).
    const client = new Client({ apiUrl, apiKey: null, callerOptions: { maxRetries: 0 } });
    const thread = await client.threads.create();
    const stream = client.threads.stream(thread.thread_id, { assistantId: "agent", transport: "websocket" });
    await stream.run.start({ input: { messages: [{ role: "user", content: "no header" }] } });
    expect(contents(await stream.output)).toEqual(["no header", "you said: no header"]);
    await stream.close();
  });
});

describe("npm start: wrangler's private port", () => {
  it("refuses a request that did not come through the edge, whatever CF-Connecting-IP it claims", async () => {
    for (const ip of ["9.9.9.9", "10.1.2.3"]) {
      const res = await fetch(`http://127.0.0.1:${PRIVATE_PORT}/runs/stats`, { headers: { "cf-connecting-ip": ip, "x-api-key": key() } });
      expect(res.status).toBe(403);
      expect(((await res.json()) as { detail: string }).detail).toContain("private port");
    }
  });

  it("refuses a WebSocket upgrade sent to it directly", async () => {
    const socket = new WebSocket(`ws://127.0.0.1:${PRIVATE_PORT}/sessions/live`, { headers: { "cf-connecting-ip": "9.9.9.9" } });
    const [req, res] = (await once(socket, "unexpected-response")) as [http.ClientRequest, http.IncomingMessage];
    expect(res.statusCode).toBe(403);
    // The refused handshake is the test's to end (ws leaves it to an `unexpected-response` listener).
    res.resume();
    req.destroy();
  });
});

describe("npm start: the official client 1.15 over SSE, after a cut, and at an interrupt", () => {
  const apiUrl = `http://${EDGE}/agent-server`;
  const contents = (values: any): string[] => (values?.messages ?? []).map((m: { content: string }) => m.content);
  const say = (content: string) => ({ messages: [{ role: "user", content }] });

  it("runs a graph to its end over SSE, and resumes after the stream is cut with each event once", async () => {
    let cuts = 0;
    // The first event stream ends after its first values frame, as a dropped connection would.
    const cutting = async (input: string | URL | Request, init?: RequestInit) => {
      const res = await fetch(input, init);
      return new URL(String(input)).pathname.endsWith("/stream/events") && cuts++ === 0 ? cutAfterFirstValues(res) : res;
    };
    const client = new Client({ apiUrl, apiKey: key(), callerOptions: { maxRetries: 0 } });
    const thread = await client.threads.create();
    const reconnects: number[] = [];
    const stream = client.threads.stream(thread.thread_id, {
      assistantId: "agent",
      fetch: cutting,
      reconnectDelayMs: () => 0,
      onReconnect: ({ attempt }: { attempt: number }) => void reconnects.push(attempt),
    });
    const seen: string[] = [];
    stream.onEvent((event: any) => void seen.push(event.event_id));
    await stream.run.start({ input: say("over sse") });
    const snapshots: string[][] = [];
    for await (const values of stream.values) snapshots.push(contents(values));
    expect(reconnects).toEqual([1]);
    expect(snapshots).toEqual([["over sse"], ["over sse", "you said: over sse"]]);
    expect(new Set(seen).size).toBe(seen.length);
    await stream.close();
  });

  it("answers an interrupt with input.respond over a keyed socket, after the socket dropped", async () => {
    const apiKey = key();
    const client = new Client({ apiUrl, apiKey, callerOptions: { maxRetries: 0 } });
    const thread = await client.threads.create();
    const sockets: WebSocket[] = [];
    const transport = new ProtocolWebSocketTransportAdapter({
      apiUrl,
      reconnectDelayMs: () => 0,
      webSocketFactory: (url: string) => {
        const socket = new WebSocket(url, { headers: { "x-api-key": apiKey } });
        sockets.push(socket);
        return socket as unknown as globalThis.WebSocket;
      },
    });
    const stream = client.threads.stream(thread.thread_id, { assistantId: "approval", transport });
    const seen: string[] = [];
    stream.onEvent((event: any) => void seen.push(event.event_id));
    await stream.run.start({ input: say("launch on Friday") });
    await stream.output;
    expect(stream.interrupted).toBe(true);
    // The connection drops while the run waits for its answer; the client opens a new socket.
    const closed = once(sockets[0]!, "close");
    sockets[0]!.terminate();
    await closed;
    const lifecycle = await stream.subscribe(["lifecycle"]);
    await stream.input.respond({ namespace: [], interrupt_id: stream.interrupts[0]!.interruptId, response: "approve" });
    for await (const event of lifecycle as AsyncIterable<any>) if (event.params.data.event === "completed") break;
    await stream.close();
    expect(sockets).toHaveLength(2);
    expect(new Set(seen).size).toBe(seen.length);
    const state = await client.threads.getState(thread.thread_id);
    expect(contents(state.values)).toEqual(["launch on Friday", "draft: launch on Friday", "review: approved", "published: draft: launch on Friday"]);
  });
});
