// A new run's `metadata` and `kwargs.config` as the real server (`@langchain/langgraph-api`'s
// `runs.put`) fills them: the assistant's, the thread's and the run's own metadata; the ids of the
// run, thread, graph and assistant in `configurable`, with the client's `x-*` headers and
// `user-agent`, but neither credentials nor what a proxy adds about the client; and the
// checkpoints the run writes carry that configurable in their metadata, as the real checkpointer
// writes it. The emulator's choice of headers is in docs/agent-server.md ("Runs").
import { describe, expect, it } from "vitest";
import { AGENT_DEFAULT_ID, agentServer, createAssistant, createThread } from "./support.ts";
import { join, say } from "./run-support.ts";
import { succeed } from "./protocol-v2-support.ts";

/** What a client behind a gateway sends: its own headers, and those the proxies on the way set. */
const HEADERS = {
  "user-agent": "client/1.0",
  "x-configurable-header": "from-client",
  "x-tenant-id": "tenant-secret",
  "x-service-key": "service-secret",
  "x-forwarded-for": "203.0.113.7",
  "x-forwarded-host": "gateway.example",
  "x-forwarded-proto": "https",
  "x-forwarded-prefix": "/agent-server",
  "x-real-ip": "203.0.113.7",
  "x-tollgate-local-edge": "session-secret",
};
const LEFT_OUT = [
  "x-api-key",
  "x-tenant-id",
  "x-service-key",
  "x-forwarded-for",
  "x-forwarded-host",
  "x-forwarded-proto",
  "x-forwarded-prefix",
  "x-real-ip",
  "x-tollgate-local-edge",
];

async function runOn(threadId: string, body: Record<string, unknown>, headers: Record<string, string> = HEADERS) {
  const created = await agentServer("POST", `/threads/${threadId}/runs`, { body, headers });
  expect(created.status).toBe(200);
  await join(threadId, created.body.run_id);
  return created.body;
}

describe("a new run's config and metadata", () => {
  it("on a graph's default assistant: created_by, the graph and assistant in metadata; the ids and the client's headers in configurable", async () => {
    const thread = await createThread();
    const run = await runOn(thread.thread_id, {
      assistant_id: "agent",
      input: say("hi"),
      metadata: { k: "v" },
      config: { tags: ["demo"], configurable: { model_name: "m" } },
    });
    const metadata = { created_by: "system", graph_id: "agent", assistant_id: AGENT_DEFAULT_ID, k: "v" };
    expect(run.metadata).toEqual(metadata);
    expect(run.kwargs.config).toEqual({
      tags: ["demo"],
      configurable: {
        model_name: "m",
        "user-agent": "client/1.0",
        "x-configurable-header": "from-client",
        run_id: run.run_id,
        thread_id: thread.thread_id,
        graph_id: "agent",
        assistant_id: AGENT_DEFAULT_ID,
      },
      metadata,
    });
    // The same when read back.
    expect((await agentServer("GET", `/threads/${thread.thread_id}/runs/${run.run_id}`)).body).toMatchObject({
      metadata,
      kwargs: { config: run.kwargs.config },
    });

    // Every checkpoint of the run: its configurable (ids but its own), its metadata, its step.
    const history = await agentServer("GET", `/threads/${thread.thread_id}/history`);
    expect(history.body.length).toBeGreaterThan(1);
    for (const state of history.body) {
      expect(state.metadata).toMatchObject({
        ...metadata,
        model_name: "m",
        "user-agent": "client/1.0",
        "x-configurable-header": "from-client",
        run_id: run.run_id,
        thread_id: thread.thread_id,
      });
      for (const key of LEFT_OUT) expect(state.metadata).not.toHaveProperty(key);
    }
    // A checkpoint's metadata filters the history, as the real server's suite filters by run metadata.
    const filtered = await agentServer("POST", `/threads/${thread.thread_id}/history`, {
      body: { limit: 10, metadata: { "x-configurable-header": "from-client" } },
    });
    expect(filtered.body).toHaveLength(history.body.length);
  });

  it("on an assistant of the client's: its config under the run's, its metadata under the thread's and the run's", async () => {
    const assistant = await createAssistant({ graph_id: "agent", config: { configurable: { a: 1, b: 1 } }, metadata: { owner: "me", k: "assistant" } });
    const thread = await createThread({ metadata: { topic: "t" } });
    const run = await runOn(
      thread.thread_id,
      { assistant_id: assistant.assistant_id, input: say("hi"), metadata: { k: "run" }, config: { configurable: { b: 2 } } },
      {},
    );
    expect(run.metadata).toEqual({ owner: "me", topic: "t", graph_id: "agent", assistant_id: assistant.assistant_id, k: "run" });
    expect(run.kwargs.config.configurable).toEqual({
      a: 1,
      b: 2,
      run_id: run.run_id,
      thread_id: thread.thread_id,
      graph_id: "agent",
      assistant_id: assistant.assistant_id,
    });
  });

  it("a thread the run creates starts with the run's metadata, as on the real server", async () => {
    const threadId = crypto.randomUUID();
    await runOn(threadId, { assistant_id: "agent", input: say("hi"), metadata: { k: "v" }, if_not_exists: "create" });
    expect((await agentServer("GET", `/threads/${threadId}`)).body.metadata).toEqual({ graph_id: "agent", assistant_id: AGENT_DEFAULT_ID, k: "v" });
  });

  it("a stateless run and a protocol v2 run are filled alike (the protocol's run copies no headers, as the real one)", async () => {
    const stateless = await agentServer("POST", "/runs/wait", { body: { assistant_id: "agent", input: say("hi"), on_completion: "keep" }, headers: HEADERS });
    const statelessRun = await agentServer("GET", stateless.headers.get("content-location")!);
    expect(statelessRun.body.kwargs.config.configurable).toMatchObject({
      "x-configurable-header": "from-client",
      graph_id: "agent",
      thread_id: statelessRun.body.thread_id,
    });
    expect(statelessRun.body.metadata).toEqual({ created_by: "system", graph_id: "agent", assistant_id: AGENT_DEFAULT_ID });

    const threadId = crypto.randomUUID();
    const { run_id } = await succeed(threadId, "run.start", { assistant_id: "agent", input: say("hi"), metadata: { via: "protocol" } });
    await join(threadId, run_id);
    const run = (await agentServer("GET", `/threads/${threadId}/runs/${run_id}`)).body;
    expect(run.metadata).toEqual({ created_by: "system", graph_id: "agent", assistant_id: AGENT_DEFAULT_ID, via: "protocol" });
    expect(run.kwargs.config.configurable).toEqual({ run_id, thread_id: threadId, graph_id: "agent", assistant_id: AGENT_DEFAULT_ID });
  });
});
