// The official JS client (@langchain/langgraph-sdk) through the gateway for graph introspection,
// thread search and update, the store and crons. Every response is held to the reference document.
import { describe, expect, it } from "vitest";
import { advanceClock, MINUTE_MS } from "./clock.ts";
import { AGENT_DEFAULT_ID, freshTag, officialClient } from "./support.ts";

describe("official JS client: assistants' graphs", () => {
  it("getGraph, getSubgraphs and getSchemas", async () => {
    const client = officialClient();
    const assistant = await client.assistants.create({ graphId: "pipeline" });
    const graph = await client.assistants.getGraph(assistant.assistant_id, { xray: true });
    expect(graph.nodes.map((n) => n.id)).toEqual(["__start__", "draft", "review", "__end__"]);
    expect(graph.edges).toContainEqual({ source: "draft", target: "review" });
    expect(await client.assistants.getSubgraphs(assistant.assistant_id)).toEqual({});
    expect(await client.assistants.getSubgraphs(assistant.assistant_id, { namespace: "draft", recurse: true })).toEqual({});
    const schemas = await client.assistants.getSchemas("agent");
    expect(schemas.graph_id).toBe("agent");
    expect(schemas.context_schema?.properties).toEqual({ system_prompt: { type: "string" }, model: { type: "string" } });
    await expect(client.assistants.getGraph(crypto.randomUUID())).rejects.toThrow(/404/);
  });
});

describe("official JS client: threads", () => {
  it("search (filters, ids, paging, select), count and update", async () => {
    const client = officialClient();
    const tag = freshTag();
    const first = await client.threads.create({ metadata: { ...tag, n: 1 } });
    const second = await client.threads.create({ metadata: { ...tag, n: 2 } });
    expect((await client.threads.search({ metadata: tag })).map((t) => t.thread_id)).toEqual([second.thread_id, first.thread_id]);
    expect((await client.threads.search({ metadata: tag, limit: 1, offset: 1 })).map((t) => t.thread_id)).toEqual([first.thread_id]);
    expect(await client.threads.search({ ids: [first.thread_id], metadata: tag, status: "idle", select: ["thread_id"] })).toEqual([
      { thread_id: first.thread_id },
    ]);
    expect(await client.threads.count({ metadata: tag })).toBe(2);

    const updated = await client.threads.update(first.thread_id, { metadata: { n: 10, note: "edited" }, ttl: 60 });
    expect(updated.metadata).toMatchObject({ ...tag, n: 10, note: "edited" });
    expect((await client.threads.search({ metadata: { ...tag, note: "edited" } })).map((t) => t.thread_id)).toEqual([first.thread_id]);
  });
});

describe("official JS client: store", () => {
  it("putItem, getItem (null when missing, refreshTtl), searchItems, listNamespaces, deleteItem", async () => {
    const client = officialClient();
    const root = `sdk-${crypto.randomUUID()}`;
    await client.store.putItem([root, "docs"], "a", { title: "A", stars: 1 });
    await advanceClock(10);
    await client.store.putItem([root, "docs"], "b", { title: "B", stars: 5 }, { ttl: 1 });
    await client.store.putItem([root, "notes", "x"], "c", { title: "C" });

    const item = await client.store.getItem([root, "docs"], "a");
    expect(item).toMatchObject({
      namespace: [root, "docs"],
      key: "a",
      value: { title: "A", stars: 1 },
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect(await client.store.getItem([root, "docs"], "missing")).toBeNull();

    const found = await client.store.searchItems([root, "docs"], { filter: { stars: { $gte: 1 } }, limit: 5 });
    expect(found.items.map((i) => i.key)).toEqual(["b", "a"]);
    expect((await client.store.searchItems([root], { filter: { title: "C" } })).items.map((i) => i.key)).toEqual(["c"]);

    // The client passes the JSON through: the emulator answers the reference document's bare list,
    // where the client's type (and the real server) has `{namespaces}` (docs/agent-server.md).
    const listNamespaces = async (options: Parameters<typeof client.store.listNamespaces>[0]) => (await client.store.listNamespaces(options)).namespaces;
    expect(await listNamespaces({ prefix: [root], maxDepth: 2 })).toEqual([
      [root, "docs"],
      [root, "notes"],
    ]);
    expect(await listNamespaces({ prefix: [root], suffix: ["x"] })).toEqual([[root, "notes", "x"]]);

    // "b" lives one minute unless read: without a refreshing read, it is gone after it.
    await advanceClock(0.5 * MINUTE_MS);
    expect(await client.store.getItem([root, "docs"], "b", { refreshTtl: false })).not.toBeNull();
    await advanceClock(0.6 * MINUTE_MS);
    expect(await client.store.getItem([root, "docs"], "b")).toBeNull();

    await client.store.deleteItem([root, "docs"], "a");
    expect(await client.store.getItem([root, "docs"], "a")).toBeNull();
  });
});

describe("official JS client: crons", () => {
  it("createForThread, create, search, count and delete", async () => {
    const client = officialClient();
    const assistant = await client.assistants.create({ graphId: "agent", metadata: freshTag() });
    const thread = await client.threads.create();
    const onThread = await client.crons.createForThread(thread.thread_id, assistant.assistant_id, {
      schedule: "0 9 * * 1-5",
      input: { messages: [{ role: "user", content: "standup" }] },
      metadata: { kind: "standup" },
    });
    expect(onThread).toMatchObject({
      thread_id: thread.thread_id,
      assistant_id: assistant.assistant_id,
      schedule: "0 9 * * 1-5",
      metadata: { kind: "standup" },
    });
    const stateless = await client.crons.create(assistant.assistant_id, { schedule: "@hourly", onRunCompleted: "keep" });
    expect(stateless).toMatchObject({ thread_id: null, on_run_completed: "keep" });
    const byGraph = await client.crons.create("agent", { schedule: "@daily" });
    expect(byGraph.assistant_id).toBe(AGENT_DEFAULT_ID);

    const mine = await client.crons.search({ assistantId: assistant.assistant_id, sortBy: "created_at", sortOrder: "asc" });
    expect(mine.map((c) => c.cron_id)).toEqual([onThread.cron_id, stateless.cron_id]);
    expect((await client.crons.search({ threadId: thread.thread_id })).map((c) => c.cron_id)).toEqual([onThread.cron_id]);
    expect(await client.crons.count({ assistantId: assistant.assistant_id })).toBe(2);

    await client.crons.delete(stateless.cron_id);
    await client.crons.delete(byGraph.cron_id);
    expect(await client.crons.count({ assistantId: assistant.assistant_id })).toBe(1);
    await expect(client.crons.delete(stateless.cron_id)).rejects.toThrow(/404/);
  });
});
