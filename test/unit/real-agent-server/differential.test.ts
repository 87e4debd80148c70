// The official clients against the real open-source agent server (tools/real-agent-server), direct
// and through `npm start` in front of it: the same statuses, bodies (ids and times aside) and event
// sequences. Differences the gateway still makes are it.fails naming the item of issue 43 that
// removes them, so each fix turns one green (and its it.fails red, to be flipped to it).
import { Client as Client2 } from "@langchain/langgraph-sdk";
import { Client as Client1, ProtocolWebSocketTransportAdapter } from "langgraph-sdk-v1";
import { describe, expect, it } from "vitest";
import WebSocket from "ws";
import { comparable, contents, freshKey, realServerAndGateway, say } from "./support.ts";
import { within } from "./timed.ts";

// This file's ports, in the real-agent-server range (19700-19799).
const both = realServerAndGateway({ server: 19700, edge: 19701, private: 19702 });

type Way = "direct" | "through";
const apiUrl = (way: Way) => (way === "direct" ? both().direct : both().through);

const clients = {
  "1.15": (way: Way) => new Client1({ apiUrl: apiUrl(way), apiKey: freshKey(), callerOptions: { maxRetries: 0 } }),
  "2.0.0": (way: Way) => new Client2({ apiUrl: apiUrl(way), apiKey: freshKey(), callerOptions: { maxRetries: 0 } }),
};

/** Runs `scenario` direct and through the gateway at once and gives both results, made comparable (support.ts). */
async function eachWay(scenario: (way: Way) => Promise<unknown>): Promise<{ direct: any; through: any }> {
  const [direct, through] = await Promise.all((["direct", "through"] as const).map(async (way) => comparable(await scenario(way))));
  return { direct, through };
}

/** A store namespace of the test's own (labels may not hold a period). */
const freshNamespace = () => ["tests", crypto.randomUUID()];

describe.concurrent.each(Object.entries(clients))("the official client %s, direct and through the gateway", (_version, client) => {
  it("assistants.search: the graphs' default assistants alike", async () => {
    const { direct, through } = await eachWay(async (way) => {
      const found = await client(way).assistants.search({ limit: 10 });
      return found.toSorted((a, b) => a.graph_id.localeCompare(b.graph_id));
    });
    expect(direct.map((a: { graph_id: string }) => a.graph_id)).toEqual(["agent", "approval", "slow"]);
    expect(through).toEqual(direct);
  });

  it("threads.create and threads.get: the same thread", async () => {
    const { direct, through } = await eachWay(async (way) => {
      const c = client(way);
      const thread = await c.threads.create({ metadata: { purpose: "differential" } });
      return [thread, await c.threads.get(thread.thread_id)];
    });
    expect(direct[1].metadata).toMatchObject({ purpose: "differential" });
    expect(through).toEqual(direct);
  });

  it("runs.wait of agent on a new thread: the same values", async () => {
    const { direct, through } = await eachWay(async (way) => {
      const c = client(way);
      const thread = await c.threads.create();
      return c.runs.wait(thread.thread_id, "agent", { input: say("hello there") });
    });
    expect(contents(direct)).toEqual(["hello there", "you said: hello there"]);
    expect(through).toEqual(direct);
  });

  it("runs.stream of agent (values, updates, messages-tuple): the same events in the same order", async () => {
    const { direct, through } = await eachWay(async (way) => {
      // Both versions' runs.stream take the same arguments; TypeScript cannot call their union.
      const c = client(way) as Client2;
      const thread = await c.threads.create();
      const events: unknown[] = [];
      for await (const event of c.runs.stream(thread.thread_id, "agent", { input: say("stream me"), streamMode: ["values", "updates", "messages-tuple"] })) {
        events.push(event);
      }
      return events;
    });
    const kinds = direct.map((e: { event: string }) => e.event);
    expect(kinds.filter((k: string) => k === "messages")).toHaveLength(4);
    expect(kinds).toEqual(expect.arrayContaining(["metadata", "values", "updates"]));
    expect(through).toEqual(direct);
  });

  it("runs.create then runs.join of slow: the same values", async () => {
    const { direct, through } = await eachWay(async (way) => {
      const c = client(way);
      const thread = await c.threads.create();
      const run = await c.runs.create(thread.thread_id, "slow", { input: { steps: 2, delay_ms: 200 } });
      return c.runs.join(thread.thread_id, run.run_id);
    });
    expect(direct).toEqual({ steps: 2, delay_ms: 200, done: 2 });
    expect(through).toEqual(direct);
  });

  it("an interrupt of approval, resumed with a Command: the same interrupt, tasks and final values", async () => {
    const { direct, through } = await eachWay(async (way) => {
      const c = client(way);
      const thread = await c.threads.create();
      const paused = await c.runs.wait(thread.thread_id, "approval", { input: say("ship it") });
      const state = await c.threads.getState(thread.thread_id);
      const resumed = await c.runs.wait(thread.thread_id, "approval", { command: { resume: "approve" } });
      return { paused, next: state.next, tasks: state.tasks, resumed };
    });
    expect(direct.paused.__interrupt__[0].value).toMatchObject({ draft: "draft: ship it" });
    expect(contents(direct.resumed)).toEqual(["ship it", "draft: ship it", "review: approved", "published: draft: ship it"]);
    expect(through).toEqual(direct);
  });

  it("the store: putItem, getItem, searchItems and listNamespaces alike", async () => {
    const { direct, through } = await eachWay(async (way) => {
      const c = client(way);
      const namespace = freshNamespace();
      await c.store.putItem(namespace, "profile", { name: "Ada" });
      return [await c.store.getItem(namespace, "profile"), await c.store.searchItems(namespace), await c.store.listNamespaces({ prefix: namespace })];
    });
    expect(direct[0]).toMatchObject({ key: "profile", value: { name: "Ada" } });
    expect(through).toEqual(direct);
  });

  // Issue 43, "Transparent forwarding": forwarded identity headers by policy per upstream (finding
  // 4: the server stores the x-forwarded-* and x-real-ip headers the gateway adds in every run's
  // config and checkpoint metadata, where every caller of the thread reads them).
  it("threads.getState, threads.getHistory and runs.get after a run: the same as direct", async () => {
    const { direct, through } = await eachWay(async (way) => {
      const c = client(way);
      const thread = await c.threads.create();
      const run = await c.runs.create(thread.thread_id, "agent", { input: say("remember me") });
      await c.runs.join(thread.thread_id, run.run_id);
      return [await c.threads.getState(thread.thread_id), await c.threads.getHistory(thread.thread_id), await c.runs.get(thread.thread_id, run.run_id)];
    });
    expect(through).toEqual(direct);
  });
});

/**
 * Protocol events in order within each namespace, the namespaces in an order of their own (by
 * their names without ids): the server interleaves a subgraph's events with the root's as they
 * come, direct as through the gateway, so that interleaving is no difference between the two.
 */
function byNamespace(events: readonly unknown[]): unknown[][] {
  const groups = new Map<string, unknown[]>();
  for (const event of events as { params: { namespace: string[] } }[]) {
    const key = event.params.namespace.join("|");
    groups.set(key, [...(groups.get(key) ?? []), event]);
  }
  const name = (key: string) => key.replace(/[0-9a-f]{8}-[0-9a-f-]{27}/gi, "");
  return [...groups.entries()].sort(([a], [b]) => name(a).localeCompare(name(b)) || a.length - b.length).map(([, group]) => group);
}

describe.concurrent("the official client 1.15's threads.stream (protocol v2; 2.0.0 has none), direct and through the gateway", () => {
  /** The events one `agent` run sends to the client's own subscription, over SSE or a WebSocket. */
  async function protocolRun(way: Way, overWebSocket: boolean) {
    const url = apiUrl(way);
    const apiKey = freshKey();
    const client = new Client1({ apiUrl: url, apiKey, callerOptions: { maxRetries: 0 } });
    const transport = overWebSocket
      ? new ProtocolWebSocketTransportAdapter({
          apiUrl: url,
          webSocketFactory: (to: string) => new WebSocket(to, { headers: { "x-api-key": apiKey } }) as unknown as globalThis.WebSocket,
        })
      : undefined;
    // A thread id of the client's own: run.start makes the thread.
    const stream = client.threads.stream(crypto.randomUUID(), { assistantId: "agent", ...(transport && { transport }) });
    const events: unknown[] = [];
    stream.onEvent((event: any) => void events.push({ method: event.method, params: event.params }));
    await stream.run.start({ input: say("over the protocol") });
    await stream.output;
    await stream.close();
    return byNamespace(events);
  }

  it.each([
    ["SSE", false],
    ["a WebSocket", true],
  ])("a run of agent over %s: the same events in the same order", async (_transport, overWebSocket) => {
    const { direct, through } = await eachWay((way) => protocolRun(way, overWebSocket));
    expect((direct as { method: string }[][]).flat().map((e) => e.method)).toEqual(expect.arrayContaining(["lifecycle", "values"]));
    expect(through).toEqual(direct);
  });

  /**
   * The message events after subscribing to `messages` first and starting the run after, or
   * undefined if the subscription never opened. Over SSE the client awaits the subscription's
   * response headers before it goes on; over a WebSocket this server answers a subscribe on a
   * thread that has no run yet only once `run.start` comes, so there the subscribe is sent first
   * and awaited after the start.
   */
  async function subscribeThenStart(way: Way, overWebSocket: boolean) {
    const url = apiUrl(way);
    const client = new Client1({ apiUrl: url, apiKey: freshKey(), callerOptions: { maxRetries: 0 } });
    const transport = overWebSocket
      ? new ProtocolWebSocketTransportAdapter({ apiUrl: url, webSocketFactory: (to: string) => new WebSocket(to) as unknown as globalThis.WebSocket })
      : undefined;
    const stream = client.threads.stream(crypto.randomUUID(), { assistantId: "agent", ...(transport && { transport }) });
    const subscribing = stream.subscribe(["messages"]);
    const subscribed = overWebSocket ? undefined : await within(2_000, subscribing);
    if (!overWebSocket && subscribed === undefined) {
      void stream.close();
      return undefined;
    }
    await stream.run.start({ input: say("subscribe first") });
    const messages = subscribed ?? (await subscribing);
    const events: unknown[] = [];
    for await (const event of messages as AsyncIterable<any>) {
      events.push({ method: event.method, data: event.params.data });
      if (event.params.data.event === "message-finish") break;
    }
    await stream.close();
    return events;
  }

  const chunksOf = (events: any[]) => events.filter((e) => e.data.event === "content-block-delta").map((e) => e.data.delta.text);

  it("subscribe to messages first, then run.start, over a WebSocket: the same message chunks", async () => {
    const { direct, through } = await eachWay((way) => subscribeThenStart(way, true));
    expect(chunksOf(direct)).toEqual(["you ", "said: ", "subscribe ", "first"]);
    expect(through).toEqual(direct);
  });

  it("subscribe to messages first, then run.start, over SSE, direct: the message chunks (the baseline)", async () => {
    expect(chunksOf(comparable(await subscribeThenStart("direct", false)) as any[])).toEqual(["you ", "said: ", "subscribe ", "first"]);
  });

  // Issue 43, "Transparent forwarding": response headers as soon as the upstream sends them, the
  // local edge included (finding 1: the subscription's headers are held until its first event,
  // which only the run it waits to start would send).
  it("subscribe to messages first, then run.start, over SSE: the same message chunks", async () => {
    const { direct, through } = await eachWay((way) => subscribeThenStart(way, false));
    expect(through).toEqual(direct);
  });
});
