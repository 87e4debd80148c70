// The official client users install today (@langchain/langgraph-sdk 1.15, npm tag `latest`, here
// as the alias langgraph-sdk-v1 beside the pinned 2.0.0) drives `client.threads.stream()` through
// the gateway: protocol v2 commands and events over SSE and over WebSocket, a graph run to its
// end, a dropped connection resumed without duplicates, and an interrupt answered with
// input.respond. Every HTTP response is held to the 2026 document.
import { describe, expect, it, vi } from "vitest";
import { AGENT_SERVER_URL } from "../agent-server/support.ts";
import { burst } from "../support/requests.ts";
import { say } from "../../support/run-input.ts";
import { cutAfterFirstValues } from "../../support/sse-cut.ts";
import { contents } from "../agent-server/run-support.ts";
import { keyedSocketTransport, officialClientV1 } from "./official-client-v1-support.ts";

const noWait = { reconnectDelayMs: () => 0 };

/** Counts the event stream requests a client made. */
function recordStreams() {
  const streams = {
    opened: 0,
    through: (request: Request, response: Response) => {
      if (new URL(request.url).pathname.endsWith("/stream/events")) streams.opened++;
      return response;
    },
  };
  return streams;
}

describe("the official client 1.15 over SSE through the gateway", () => {
  it("runs a graph to its end with threads.stream()", async () => {
    const { client, fetch } = officialClientV1();
    const thread = await client.threads.create();
    const stream = client.threads.stream(thread.thread_id, { assistantId: "agent", fetch, ...noWait });
    const started = await stream.run.start({ input: say("hello v1") });
    expect(started).toEqual({ run_id: expect.any(String) });
    const output: any = await stream.output;
    expect(contents(output)).toEqual(["hello v1", "you said: hello v1"]);
    expect(stream.interrupted).toBe(false);
    await stream.close();
    const state = await client.threads.getState(thread.thread_id);
    expect(contents(state.values)).toEqual(["hello v1", "you said: hello v1"]);
  });

  it("resumes after the connection is cut: the buffered run is replayed and no event comes twice", async () => {
    const streams = recordStreams();
    let cuts = 0;
    const { client, fetch } = officialClientV1((request, response) => {
      streams.through(request, response);
      if (new URL(request.url).pathname.endsWith("/stream/events") && cuts === 0) {
        cuts++;
        return cutAfterFirstValues(response);
      }
      return response;
    });
    const thread = await client.threads.create();
    const reconnects: number[] = [];
    const stream = client.threads.stream(thread.thread_id, {
      assistantId: "agent",
      fetch,
      ...noWait,
      onReconnect: ({ attempt }: { attempt: number }) => void reconnects.push(attempt),
    });
    const seen: number[] = [];
    stream.onEvent((event: any) => void seen.push(event.seq));
    await stream.run.start({ input: say("cut me") });
    const snapshots: any[] = [];
    for await (const values of stream.values) snapshots.push(values);
    expect(reconnects).toEqual([1]);
    expect(streams.opened).toBeGreaterThanOrEqual(2);
    // Each values event once: the state after the input, then after the reply.
    expect(snapshots.map(contents)).toEqual([["cut me"], ["cut me", "you said: cut me"]]);
    expect(new Set(seen).size).toBe(seen.length);
    await stream.close();
  });

  it("answers an interrupt with input.respond, and the run goes on to its end", async () => {
    const { client, fetch } = officialClientV1();
    const thread = await client.threads.create();
    const stream = client.threads.stream(thread.thread_id, { assistantId: "approval", fetch, ...noWait });
    await stream.run.start({ input: say("launch on Friday") });
    await stream.output;
    expect(stream.interrupted).toBe(true);
    expect(stream.interrupts).toEqual([
      { interruptId: expect.any(String), payload: expect.objectContaining({ question: "Approve this draft?" }), namespace: [] },
    ]);
    const lifecycle = await stream.subscribe(["lifecycle"]);
    await stream.input.respond({ namespace: [], interrupt_id: stream.interrupts[0]!.interruptId, response: "approve" });
    for await (const event of lifecycle as AsyncIterable<any>) if (event.params.data.event === "completed") break;
    await stream.close();
    const state = await client.threads.getState(thread.thread_id);
    expect(contents(state.values)).toEqual(["launch on Friday", "draft: launch on Friday", "review: approved", "published: draft: launch on Friday"]);
  });
});

describe("the official client 1.15 over WebSocket through the gateway", () => {
  it("runs a graph to its end over a keyed socket", async () => {
    const { client, apiKey } = officialClientV1();
    const thread = await client.threads.create();
    const { transport, sockets } = keyedSocketTransport(apiKey);
    const stream = client.threads.stream(thread.thread_id, { assistantId: "agent", transport });
    await stream.run.start({ input: say("hello socket") });
    const output: any = await stream.output;
    expect(contents(output)).toEqual(["hello socket", "you said: hello socket"]);
    await stream.close();
    expect(sockets).toHaveLength(1);
  });

  it("reconnects after the socket drops, re-subscribes, and the next run arrives on the new socket, each event once", async () => {
    const { client, apiKey } = officialClientV1();
    const thread = await client.threads.create();
    const { transport, sockets } = keyedSocketTransport(apiKey);
    const stream = client.threads.stream(thread.thread_id, { assistantId: "agent", transport });
    const seen: string[] = [];
    stream.onEvent((event: any) => void seen.push(event.event_id));
    await stream.run.start({ input: say("first") });
    await stream.output;
    // The connection drops between runs (the client is told at once, as by a network error).
    sockets[0]!.drop();
    const events = await stream.subscribe(["values", "lifecycle"]);
    const second = (await stream.run.start({ input: say("second") })) as { run_id: string };
    let last: any;
    for await (const event of events as AsyncIterable<any>) {
      if (event.method === "values") last = event.params.data;
      if (event.method === "lifecycle" && event.params.data.event === "completed" && event.params.data.run_id === second.run_id) break;
    }
    expect(sockets).toHaveLength(2);
    expect(contents(last)).toEqual(["first", "you said: first", "second", "you said: second"]);
    expect(new Set(seen).size).toBe(seen.length);
    await stream.close();
  });

  it("answers an interrupt with input.respond on the socket", async () => {
    const { client, apiKey } = officialClientV1();
    const thread = await client.threads.create();
    const { transport } = keyedSocketTransport(apiKey);
    const stream = client.threads.stream(thread.thread_id, { assistantId: "approval", transport });
    await stream.run.start({ input: say("ship it") });
    await stream.output;
    expect(stream.interrupted).toBe(true);
    const lifecycle = await stream.subscribe(["lifecycle"]);
    await stream.input.respond({ namespace: [], interrupt_id: stream.interrupts[0]!.interruptId, response: "approve" });
    for await (const event of lifecycle as AsyncIterable<any>) if (event.params.data.event === "completed") break;
    await stream.close();
    const state = await client.threads.getState(thread.thread_id);
    expect(contents(state.values).at(-1)).toBe("published: draft: ship it");
  });

  it("runs a graph to its end on a thread it has not created yet (the client makes the id; run.start creates it)", async () => {
    const { client, apiKey } = officialClientV1();
    const { transport } = keyedSocketTransport(apiKey);
    const threadId = crypto.randomUUID();
    const stream = client.threads.stream(threadId, { assistantId: "agent", transport });
    await stream.run.start({ input: say("a new thread") });
    expect(contents(await stream.output)).toEqual(["a new thread", "you said: a new thread"]);
    await stream.close();
    expect(contents((await client.threads.getState(threadId)).values)).toEqual(["a new thread", "you said: a new thread"]);
  });

  it("ends the stream for good when the server closes with 4404 (its thread deleted)", async () => {
    const { client, apiKey } = officialClientV1();
    const thread = await client.threads.create();
    const { transport, sockets } = keyedSocketTransport(apiKey);
    const stream = client.threads.stream(thread.thread_id, { assistantId: "agent", transport });
    await stream.run.start({ input: say("before the delete") });
    await stream.output;
    await client.threads.delete(thread.thread_id);
    await expect.poll(() => sockets[0]!.closedBy?.code, { timeout: 30_000 }).toBe(4404);
    await expect(stream.agent.getTree()).rejects.toThrow();
    await stream.close();
  });

  it("surfaces a command refused in-band past the key's limit as its ProtocolError, not a hang", async () => {
    // The clock stands still, so the key's window cannot slide between the burst and the socket.
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(new Date("2026-11-28T12:00:00Z"));
    try {
      const { client, apiKey, fetch } = officialClientV1();
      const thread = await client.threads.create();
      // What the key has left (its RateLimit `r`); the upgrade takes one more: leave none for the run.
      const read = await fetch(`${AGENT_SERVER_URL}/threads/${thread.thread_id}`, { headers: { "x-api-key": apiKey } });
      const left = Number(/"agent-server-default-key";r=(\d+)/.exec(read.headers.get("ratelimit") ?? "")?.[1]);
      const statuses = await burst(left - 1, () => fetch(`${AGENT_SERVER_URL}/threads/${thread.thread_id}`, { headers: { "x-api-key": apiKey } }));
      expect(Object.fromEntries(statuses)).toEqual({ 200: left - 1 });
      const { transport } = keyedSocketTransport(apiKey);
      const stream = client.threads.stream(thread.thread_id, { assistantId: "agent", transport });
      const refused = await stream.run.start({ input: say("one too many") }).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(refused).toMatchObject({ name: "ProtocolError", code: "permission_denied" });
      expect((refused as Error).message).toMatch(/Rate limit "agent-server-default-key".*Retry after \d+ seconds/);
      await stream.close();
    } finally {
      vi.useRealTimers();
    }
  });
});
