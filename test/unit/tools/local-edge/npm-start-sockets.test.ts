// `npm start` as a user runs it (the local edge in front of wrangler dev, the emulator Workers
// bound), US region: issue 42's socket limits (npm-start-socket-limits.ts, the same suite as the
// EU file runs), and what only this file checks: a start without warnings, wrangler's private port
// answering no one but the edge (issue 32, finding 8), and the official client 1.15 over SSE after
// a cut and over a keyed socket dropped at an interrupt.
import { once } from "node:events";
import type http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client, ProtocolWebSocketTransportAdapter } from "langgraph-sdk-v1";
import WebSocket from "ws";
import { cutAfterFirstValues } from "../../../support/sse-cut.ts";
import { contents, freshKey, type NpmStart, say, startNpmStart } from "./npm-start.ts";
import { describeSocketLimits } from "./npm-start-socket-limits.ts";

// In this file's own range, apart from 8787, from the EU file and from other local runs.
const EDGE_PORT = 18110;
const PRIVATE_PORT = 18111;

let npmStart: NpmStart | undefined;
beforeAll(async () => {
  npmStart = await startNpmStart("us", EDGE_PORT, PRIVATE_PORT);
}, 180_000);
afterAll(() => npmStart?.stop(), 60_000);
const started = () => npmStart!;

describe("npm start: its start", () => {
  it("prints no warning: nothing a newcomer would read as broken (wrangler's and the gateway's alike)", () => {
    expect(started().startup).toContain("tollgate is ready on");
    expect(started().startup.replace(/\x1b\[[0-9;]*m/g, "")).not.toMatch(/WARNING|\[wrangler:warn\]/);
  });
});

describe("npm start (US): a socket is no tunnel around the limits", () => {
  describeSocketLimits(started, "127.0.42");
});

describe("npm start: wrangler's private port", () => {
  it("refuses a request that did not come through the edge, whatever CF-Connecting-IP it claims", async () => {
    for (const ip of ["9.9.9.9", "10.1.2.3"]) {
      const res = await fetch(`http://127.0.0.1:${PRIVATE_PORT}/runs/stats`, { headers: { "cf-connecting-ip": ip, "x-api-key": freshKey() } });
      expect(res.status).toBe(403);
      expect(((await res.json()) as { detail: string }).detail).toContain("private port");
    }
  });

  it("refuses a WebSocket upgrade sent to it directly", async () => {
    const socket = new WebSocket(`ws://127.0.0.1:${PRIVATE_PORT}/agent-server/threads/${crypto.randomUUID()}/stream/events`, {
      headers: { "cf-connecting-ip": "9.9.9.9" },
    });
    const [req, res] = (await once(socket, "unexpected-response")) as [http.ClientRequest, http.IncomingMessage];
    expect(res.statusCode).toBe(403);
    // The refused handshake is the test's to end (ws leaves it to an `unexpected-response` listener).
    res.resume();
    req.destroy();
  });
});

describe("npm start: the official client 1.15 over SSE after a cut, and over a keyed socket at an interrupt", () => {
  const apiUrl = () => `http://${started().edge}/agent-server`;

  it("runs a graph to its end over SSE, and resumes after the stream is cut with each event once", async () => {
    let cuts = 0;
    // The first event stream ends after its first values frame, as a dropped connection would.
    const cutting = async (input: string | URL | Request, init?: RequestInit) => {
      const res = await fetch(input, init);
      return new URL(String(input)).pathname.endsWith("/stream/events") && cuts++ === 0 ? cutAfterFirstValues(res) : res;
    };
    const client = new Client({ apiUrl: apiUrl(), apiKey: freshKey(), callerOptions: { maxRetries: 0 } });
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

  it("answers an interrupt with input.respond over a keyed socket (counted by key), after the socket dropped", async () => {
    const apiKey = freshKey();
    const client = new Client({ apiUrl: apiUrl(), apiKey, callerOptions: { maxRetries: 0 } });
    const thread = await client.threads.create();
    const sockets: WebSocket[] = [];
    const upgrades: http.IncomingMessage[] = [];
    const transport = new ProtocolWebSocketTransportAdapter({
      apiUrl: apiUrl(),
      reconnectDelayMs: () => 0,
      webSocketFactory: (url: string) => {
        const socket = new WebSocket(url, { headers: { "x-api-key": apiKey } });
        socket.on("upgrade", (res) => upgrades.push(res));
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
    expect(upgrades.map((res) => res.headers["ratelimit-policy"])).toEqual([
      expect.stringMatching(/^"agent-server-default-key";/),
      expect.stringMatching(/^"agent-server-default-key";/),
    ]);
    expect(new Set(seen).size).toBe(seen.length);
    const state = await client.threads.getState(thread.thread_id);
    expect(contents(state.values)).toEqual(["launch on Friday", "draft: launch on Friday", "review: approved", "published: draft: launch on Friday"]);
  });
});
