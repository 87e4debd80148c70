// POST /threads/{thread_id}/runs/stream end to end (pacing: streaming.test.ts; through the gateway:
// test/workers/through-gateway/agent-server-stream.test.ts).
import { describe, expect, it } from "vitest";
import { agentServer, createAssistant, createThread, lastReply, send, streamRun } from "./support.ts";
import { say } from "../../support/run-input.ts";

describe("streaming a run", () => {
  it("answers text/event-stream with Content-Location, no Location, and the rate-limit headers", async () => {
    const thread = await createThread();
    const { res, events } = await streamRun(thread.thread_id, { assistant_id: "agent", input: say("hi"), stream_mode: ["updates"] });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    const runId = events[0]!.data.run_id;
    expect(res.headers.get("content-location")).toBe(`/threads/${thread.thread_id}/runs/${runId}`);
    expect(res.headers.get("location")).toBeNull();
  });

  it("sends metadata first, then updates and values per node step, in the wire format", async () => {
    const thread = await createThread();
    const res = await send("POST", `/threads/${thread.thread_id}/runs/stream`, {
      body: { assistant_id: "agent", input: say("hello"), stream_mode: ["updates", "values"] },
    });
    const wire = await res.text();
    // The stream opens with a comment, so its headers go out before the first event (shared/sse.ts).
    expect(wire.startsWith(": connected\n")).toBe(true);
    const blocks = wire.slice(": connected\n".length).split("\n\n").filter(Boolean);
    expect(blocks.map((b) => b.split("\n")[0])).toEqual(["event: metadata", "event: values", "event: updates", "event: values"]);
    for (const block of blocks) expect(block).toMatch(/^event: [a-z]+\ndata: \{.*\}$/);
    const [metadata, inputValues, update, finalValues] = blocks.map((b) => JSON.parse(b.split("\ndata: ")[1]!));
    expect(metadata).toEqual({ run_id: expect.any(String), attempt: 1 });
    expect(inputValues.messages).toEqual([{ id: expect.any(String), type: "human", content: "hello" }]);
    expect(update).toEqual({ agent: { messages: [{ id: `run-${metadata.run_id}-agent`, type: "ai", content: "you said: hello", name: "agent" }] } });
    expect(finalValues.messages).toEqual([...inputValues.messages, ...update.agent.messages]);
  });

  it("takes stream_mode as a string; defaults to values; accepted modes it does not emulate stay silent", async () => {
    const thread = await createThread();
    const one = await streamRun(thread.thread_id, { assistant_id: "agent", input: say("a"), stream_mode: "updates" });
    expect(one.events.map((e) => e.event)).toEqual(["metadata", "updates"]);
    const byDefault = await streamRun(thread.thread_id, { assistant_id: "agent", input: say("b") });
    expect(byDefault.events.map((e) => e.event)).toEqual(["metadata", "values", "values"]);
    const silent = await streamRun(thread.thread_id, { assistant_id: "agent", input: say("c"), stream_mode: ["debug", "custom"] });
    expect(silent.events.map((e) => e.event)).toEqual(["metadata"]);
  });

  it("streams one updates event per node of the two-node pipeline graph", async () => {
    const assistant = await createAssistant({ graph_id: "pipeline", context: { system_prompt: "Editor." } });
    const thread = await createThread();
    const { events } = await streamRun(thread.thread_id, { assistant_id: assistant.assistant_id, input: say("text"), stream_mode: ["updates"] });
    expect(events.map((e) => e.event)).toEqual(["metadata", "updates", "updates"]);
    expect(events[1]!.data.draft.messages[0].content).toBe("draft: text");
    expect(events[2]!.data.review.messages[0].content).toBe("Editor. | reviewed: text");
  });

  it("saves the run's values on the thread, which is idle again, and the next run sees them", async () => {
    const thread = await createThread();
    await streamRun(thread.thread_id, { assistant_id: "agent", input: say("first") });
    const after = await agentServer("GET", `/threads/${thread.thread_id}`);
    expect(after.body.status).toBe("idle");
    expect(after.body.metadata).toEqual({ graph_id: "agent", assistant_id: "fe096781-5601-53d2-b2f6-0d3403f7e9ca" });
    expect(after.body.values.messages.map((m: any) => m.content)).toEqual(["first", "you said: first"]);
    const { events } = await streamRun(thread.thread_id, { assistant_id: "agent", input: say("second"), stream_mode: "values" });
    expect(events.at(-1)!.data.messages.map((m: any) => m.content)).toEqual(["first", "you said: first", "second", "you said: second"]);
  });

  it("answers with a run without input from the thread's last user message", async () => {
    const thread = await createThread();
    await streamRun(thread.thread_id, { assistant_id: "agent", input: say("remember me") });
    const { events } = await streamRun(thread.thread_id, { assistant_id: "agent", input: null, stream_mode: "updates" });
    expect(events[1]!.data.agent.messages[0].content).toBe("you said: remember me");
  });

  it("keeps the run record at its Content-Location", async () => {
    const thread = await createThread();
    const { res } = await streamRun(thread.thread_id, { assistant_id: "agent", input: say("x"), metadata: { k: "v" } });
    const run = await agentServer("GET", res.headers.get("content-location")!);
    expect(run.status).toBe(200);
    expect(run.body).toMatchObject({
      thread_id: thread.thread_id,
      assistant_id: "fe096781-5601-53d2-b2f6-0d3403f7e9ca",
      status: "success",
      metadata: { k: "v" },
      multitask_strategy: "enqueue",
    });
    expect(run.body.kwargs).toMatchObject({ input: say("x"), stream_mode: ["values"], context: {} });
    expect((await agentServer("GET", `/threads/${thread.thread_id}/runs/${crypto.randomUUID()}`)).status).toBe(404);
  });
});

describe("which configuration a run uses", () => {
  it("runs an assistant's active version at the time of the request", async () => {
    const assistant = await createAssistant({ graph_id: "agent", context: { system_prompt: "Prompt one." } });
    const thread = await createThread();
    const reply = async () =>
      lastReply(
        (await streamRun(thread.thread_id, { assistant_id: assistant.assistant_id, input: say("q"), stream_mode: "values" })).events.at(-1)!.data.messages,
      );
    expect(await reply()).toBe("Prompt one. | you said: q");
    await agentServer("PATCH", `/assistants/${assistant.assistant_id}`, { body: { context: { model: "gpt-x" } } });
    expect(await reply()).toBe("model: gpt-x | you said: q");
    await agentServer("POST", `/assistants/${assistant.assistant_id}/latest`, { body: { version: 1 } });
    expect(await reply()).toBe("Prompt one. | you said: q");
  });

  it("lays the run's own context over the version's, and takes a graph id or an upper-case UUID", async () => {
    const assistant = await createAssistant({ graph_id: "agent", context: { system_prompt: "Base.", model: "m1" } });
    const thread = await createThread();
    const { events } = await streamRun(thread.thread_id, {
      assistant_id: assistant.assistant_id.toUpperCase(),
      input: say("q"),
      context: { model: "m2" },
      stream_mode: "updates",
    });
    expect(events[1]!.data.agent.messages[0].content).toBe("Base. | model: m2 | you said: q");
    const byGraph = await streamRun(thread.thread_id, { assistant_id: "pipeline", input: say("q"), stream_mode: "updates" });
    expect(byGraph.events[2]!.data.review.messages[0].content).toBe("reviewed: q");
  });
});

describe("a run that fails", () => {
  it("ends with an error event when a user message carries the failure marker; the thread turns error", async () => {
    const thread = await createThread();
    const { res, events } = await streamRun(thread.thread_id, { assistant_id: "agent", input: say("boom [[fail]]"), stream_mode: ["updates", "values"] });
    expect(res.status).toBe(200);
    expect(events.map((e) => e.event)).toEqual(["metadata", "values", "error"]);
    expect(events[2]!.data).toEqual({
      error: "EmulatedNodeError",
      message: 'Node "agent" failed on purpose: the last user message contains the failure marker [[fail]].',
    });
    const after = (await agentServer("GET", `/threads/${thread.thread_id}`)).body;
    expect(after.status).toBe("error");
    // The input was applied before the node failed, as LangGraph checkpoints it.
    expect(after.values.messages.map((m: any) => m.content)).toEqual(["boom [[fail]]"]);
    const run = await agentServer("GET", res.headers.get("content-location")!);
    expect(run.body.status).toBe("error");

    // The thread takes the next run, which succeeds.
    await streamRun(thread.thread_id, { assistant_id: "agent", input: say("better") });
    expect((await agentServer("GET", `/threads/${thread.thread_id}`)).body.status).toBe("idle");
  });

  it("fails the pipeline in its second node, after the first node's update", async () => {
    const thread = await createThread();
    const { events } = await streamRun(thread.thread_id, { assistant_id: "pipeline", input: say("[[fail]]"), stream_mode: "updates" });
    expect(events.map((e) => e.event)).toEqual(["metadata", "updates", "error"]);
    expect(events[2]!.data.message).toContain('Node "review"');
  });

  it("ends with an error event for input the graph cannot take", async () => {
    const thread = await createThread();
    const { events } = await streamRun(thread.thread_id, { assistant_id: "agent", input: { messages: [{ role: "robot", content: "x" }] } });
    expect(events.map((e) => e.event)).toEqual(["metadata", "error"]);
    expect(events[1]!.data).toMatchObject({ error: "InvalidInputError", message: expect.stringContaining('"robot"') });
  });
});

describe("refusals before any stream starts", () => {
  it("answers 404 JSON for an unknown thread, assistant or graph", async () => {
    const missingThread = crypto.randomUUID();
    const noThread = await agentServer("POST", `/threads/${missingThread}/runs/stream`, { body: { assistant_id: "agent" } });
    expect(noThread).toMatchObject({ status: 404, body: { detail: `Thread ${missingThread} not found.` } });
    expect(noThread.headers.get("content-type")).toBe("application/json");

    const thread = await createThread();
    const missingAssistant = crypto.randomUUID();
    const noAssistant = await agentServer("POST", `/threads/${thread.thread_id}/runs/stream`, { body: { assistant_id: missingAssistant } });
    expect(noAssistant.status).toBe(404);
    expect(noAssistant.body.detail).toContain(`Assistant '${missingAssistant}' not found`);
    const noGraph = await agentServer("POST", `/threads/${thread.thread_id}/runs/stream`, { body: { assistant_id: "no-such-graph" } });
    expect(noGraph.status).toBe(404);
    // Nothing ran: the thread is untouched.
    expect((await agentServer("GET", `/threads/${thread.thread_id}`)).body).toEqual(thread);
  });

  it("creates a missing thread with if_not_exists: create", async () => {
    const id = crypto.randomUUID();
    const { res } = await streamRun(id, { assistant_id: "agent", input: say("hi"), if_not_exists: "create" });
    expect(res.status).toBe(200);
    expect((await agentServer("GET", `/threads/${id}`)).body.values.messages).toHaveLength(2);
  });

  it("answers 422 for a non-uuid thread id, a missing assistant_id or body, and malformed JSON", async () => {
    const bad = await agentServer("POST", "/threads/nope/runs/stream", { body: { assistant_id: "agent" } });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0]).toMatchObject({ type: "uuid_parsing", loc: ["path", "thread_id"] });
    const thread = await createThread();
    const path = `/threads/${thread.thread_id}/runs/stream`;
    const missing = await agentServer("POST", path, { body: { input: say("x") } });
    expect(missing.status).toBe(422);
    expect(missing.body.detail).toEqual([{ type: "missing", loc: ["body", "assistant_id"], msg: "Field required" }]);
    expect((await agentServer("POST", path)).body.detail[0]).toMatchObject({ type: "missing", loc: ["body"] });
    expect((await agentServer("POST", path, { rawBody: '{"assistant_id": ' })).body.detail[0].type).toBe("json_invalid");
  });

  it("answers 422 for fields of the wrong type, as FastAPI does, even those the emulator does not act on", async () => {
    const thread = await createThread();
    const res = await agentServer("POST", `/threads/${thread.thread_id}/runs/stream`, {
      body: {
        assistant_id: "agent",
        config: { tags: "t", recursion_limit: "10" },
        stream_subgraphs: "yes",
        stream_resumable: 1,
        feedback_keys: "score",
        checkpoint_during: "no",
        durability: "forever",
      },
    });
    expect(res.status).toBe(422);
    expect(res.body.detail.map((e: any) => [e.type, e.loc.join(".")])).toEqual([
      ["list_type", "body.config.tags"],
      ["int_type", "body.config.recursion_limit"],
      ["bool_type", "body.stream_subgraphs"],
      ["bool_type", "body.stream_resumable"],
      ["list_type", "body.feedback_keys"],
      ["bool_type", "body.checkpoint_during"],
      ["enum", "body.durability"],
    ]);
    expect(res.body.detail.at(-1)).toMatchObject({ msg: "Input should be 'sync', 'async' or 'exit'", input: "forever" });
    const items = await agentServer("POST", `/threads/${thread.thread_id}/runs/stream`, { body: { assistant_id: "agent", feedback_keys: ["ok", 2] } });
    expect(items.body.detail).toEqual([{ type: "string_type", loc: ["body", "feedback_keys", 1], msg: "Input should be a valid string", input: 2 }]);
    // Nothing ran.
    expect((await agentServer("GET", `/threads/${thread.thread_id}`)).body).toEqual(thread);
  });

  it("takes those fields with their documented types, and runs as usual", async () => {
    const thread = await createThread();
    const config = { tags: ["demo"], recursion_limit: 5, configurable: { user: "u1" } };
    const { res, events } = await streamRun(thread.thread_id, {
      assistant_id: "agent",
      input: say("typed"),
      stream_mode: "updates",
      config,
      stream_subgraphs: true,
      stream_resumable: false,
      feedback_keys: ["score"],
      checkpoint_during: true,
      durability: "sync",
    });
    expect(res.status).toBe(200);
    expect(events.map((e) => e.event)).toEqual(["metadata", "updates"]);
    expect((await agentServer("GET", res.headers.get("content-location")!)).body.kwargs.config).toMatchObject(config);
  });

  it("answers 422 for an unknown stream mode, a context the graph refuses, and options the emulator does not implement", async () => {
    const thread = await createThread();
    const path = `/threads/${thread.thread_id}/runs/stream`;
    const mode = await agentServer("POST", path, { body: { assistant_id: "agent", stream_mode: ["updates", "everything"] } });
    expect(mode.status).toBe(422);
    expect(mode.body.detail[0]).toMatchObject({ type: "enum", loc: ["body", "stream_mode", 1], input: "everything" });
    const context = await agentServer("POST", path, { body: { assistant_id: "agent", context: { temperature: 0.2 } } });
    expect(context.status).toBe(422);
    expect(context.body.detail[0]).toMatchObject({ type: "extra_forbidden", loc: ["body", "context", "temperature"] });
    const unsupported = await agentServer("POST", path, { body: { assistant_id: "agent", webhook: "https://example.com/hook" } });
    expect(unsupported.status).toBe(422);
    expect(unsupported.body.detail.map((e: any) => e.loc)).toEqual([["body", "webhook"]]);
    expect(unsupported.body.detail[0].msg).toContain("not supported by the agent-server emulator");
    // None of the refused runs touched the thread.
    expect((await agentServer("GET", `/threads/${thread.thread_id}`)).body).toEqual(thread);
  });
});
