// The `tasks`, `checkpoints` and `events` stream modes, as the open-source agent server streams them
// (its own API suite: "tasks / checkpoints stream mode" and "runs > stream events"; the shapes as
// tools/real-agent-server's graphs show them through the real server).
import { describe, expect, it } from "vitest";
import { agentServer, createThread, streamRun, UUID, type WireEvent } from "./support.ts";

const say = (content: string) => ({ messages: [{ role: "user", content }] });
const names = (events: readonly WireEvent[]) => events.map((e) => e.event);
const contents = (values: { messages: Array<{ content: string }> }) => values.messages.map((m) => m.content);

describe("stream mode tasks and checkpoints", () => {
  it("a checkpoint per step and a task start and result per node, in the real server's order", async () => {
    const thread = await createThread();
    const { events } = await streamRun(thread.thread_id, { assistant_id: "pipeline", input: say("plan"), stream_mode: ["tasks", "checkpoints"] });
    expect(names(events)).toEqual(["metadata", "checkpoints", "checkpoints", "tasks", "tasks", "checkpoints", "tasks", "tasks", "checkpoints"]);
    const [, input, loop, draftStart, draftEnd, drafted, reviewStart, reviewEnd, reviewed] = events.map((e) => e.data);
    expect(input).toEqual({ values: {}, metadata: { source: "input", step: -1, parents: {} }, next: ["__start__"] });
    expect(loop).toMatchObject({ metadata: { source: "loop", step: 0, parents: {} }, next: ["draft"] });
    expect(contents(loop.values)).toEqual(["plan"]);
    expect(draftStart).toMatchObject({ name: "draft", triggers: ["branch:to:draft"], interrupts: [] });
    expect(draftStart.id).toMatch(UUID);
    expect(contents(draftStart.input)).toEqual(["plan"]);
    expect(draftStart.metadata).toMatchObject({ graph_id: "pipeline", run_id: events[0]!.data.run_id });
    expect(draftEnd).toMatchObject({ id: draftStart.id, name: "draft", interrupts: [], error: null });
    expect(contents(draftEnd.result)).toEqual(["draft: plan"]);
    expect(drafted).toMatchObject({ metadata: { source: "loop", step: 1 }, next: ["review"] });
    expect(contents(drafted.values)).toEqual(["plan", "draft: plan"]);
    expect(reviewStart).toMatchObject({ name: "review", triggers: ["branch:to:review"] });
    expect(contents(reviewEnd.result)).toEqual(["reviewed: plan"]);
    expect(reviewed).toMatchObject({ metadata: { source: "loop", step: 2 }, next: [] });
    expect(contents(reviewed.values)).toEqual(["plan", "draft: plan", "reviewed: plan"]);

    // The task ids are those of the thread's checkpoints (what /history shows as tasks[].id).
    const history = (await agentServer("POST", `/threads/${thread.thread_id}/history`, { body: { limit: 10 } })).body;
    const taskIds = history.flatMap((c: any) => c.tasks.map((t: any) => t.id));
    expect(taskIds).toEqual(expect.arrayContaining([draftStart.id, reviewStart.id]));
  });

  it("a node that pauses ends its task with the interrupt and an empty result; a failing one with its error", async () => {
    const thread = await createThread();
    const { events } = await streamRun(thread.thread_id, { assistant_id: "approval", input: say("ship it"), stream_mode: "tasks" });
    const results = events.filter((e) => e.event === "tasks" && "result" in e.data).map((e) => e.data);
    expect(results.map((r) => r.name)).toEqual(["draft", "human_review"]);
    expect(results[1]).toMatchObject({ result: {}, error: null, interrupts: [{ value: expect.objectContaining({ question: expect.any(String) }) }] });

    const failing = await createThread();
    const failed = await streamRun(failing.thread_id, { assistant_id: "agent", input: say("please fail: [[fail]]"), stream_mode: "tasks" });
    const ended = failed.events.find((e) => e.event === "tasks" && "result" in e.data);
    expect(ended?.data).toMatchObject({ name: "agent", result: {}, interrupts: [], error: { error: "EmulatedNodeError" } });
    expect(names(failed.events).at(-1)).toBe("error");
  });

  it("only the modes asked for: tasks alone sends no checkpoints, and values alone neither", async () => {
    const thread = await createThread();
    const tasks = await streamRun(thread.thread_id, { assistant_id: "agent", input: say("hi"), stream_mode: "tasks" });
    expect(names(tasks.events)).toEqual(["metadata", "tasks", "tasks"]);
    const values = await streamRun(thread.thread_id, { assistant_id: "agent", input: say("hi"), stream_mode: "values" });
    expect(new Set(names(values.events))).toEqual(new Set(["metadata", "values"]));
  });
});

describe("stream mode events", () => {
  it("LangChain callback events: the graph's and each node's chain start and end, and the agent's chat model", async () => {
    const thread = await createThread();
    const { events } = await streamRun(thread.thread_id, { assistant_id: "agent", input: say("hi there"), stream_mode: "events" });
    const runId = events[0]!.data.run_id;
    expect(new Set(names(events))).toEqual(new Set(["metadata", "events"]));
    const callbacks = events.filter((e) => e.event === "events").map((e) => e.data);
    expect(callbacks.map((c) => `${c.event} ${c.name}`)).toEqual([
      "on_chain_start LangGraph",
      "on_chain_start agent",
      "on_chat_model_start EchoChatModel",
      "on_chat_model_stream EchoChatModel",
      "on_chat_model_stream EchoChatModel",
      "on_chat_model_stream EchoChatModel",
      "on_chat_model_stream EchoChatModel",
      "on_chat_model_end EchoChatModel",
      "on_chain_end agent",
      "on_chain_end LangGraph",
    ]);
    for (const c of callbacks) {
      expect(Object.keys(c).sort()).toEqual(["data", "event", "metadata", "name", "run_id", "tags"]);
      expect(c.run_id).toMatch(UUID);
      expect(c.metadata).toMatchObject({ run_id: runId, thread_id: thread.thread_id, graph_id: "agent" });
    }
    const [graphStart, nodeStart, modelStart, ...rest] = callbacks;
    expect(graphStart).toMatchObject({ run_id: runId, tags: [], data: { input: say("hi there") } });
    expect(nodeStart).toMatchObject({
      tags: ["graph:step:1"],
      metadata: { langgraph_node: "agent", langgraph_step: 1, langgraph_triggers: ["branch:to:agent"] },
    });
    expect(contents(nodeStart.data.input)).toEqual(["hi there"]);
    expect(modelStart.metadata).toMatchObject({ langgraph_node: "agent", ls_model_type: "chat" });
    const chunks = rest.filter((c) => c.event === "on_chat_model_stream").map((c) => c.data.chunk);
    expect(chunks.map((c) => c.content).join("")).toBe("you said: hi there");
    expect(chunks.every((c) => c.type === "ai")).toBe(true);
    const modelEnd = rest.find((c) => c.event === "on_chat_model_end")!;
    expect(modelEnd.data.output).toMatchObject({ type: "ai", content: "you said: hi there" });
    const nodeEnd = rest.find((c) => c.event === "on_chain_end" && c.name === "agent")!;
    expect(contents(nodeEnd.data.output)).toEqual(["you said: hi there"]);
    expect(nodeEnd.run_id).toBe(nodeStart.run_id);
    const graphEnd = callbacks.at(-1)!;
    expect(graphEnd.run_id).toBe(runId);
    expect(contents(graphEnd.data.output)).toEqual(["hi there", "you said: hi there"]);
  });

  it("graphs without a chat model send chain events for each node", async () => {
    const thread = await createThread();
    const { events } = await streamRun(thread.thread_id, { assistant_id: "pipeline", input: say("x"), stream_mode: ["events", "updates"] });
    expect(events.filter((e) => e.event === "events").map((e) => `${e.data.event} ${e.data.name}`)).toEqual([
      "on_chain_start LangGraph",
      "on_chain_start draft",
      "on_chain_end draft",
      "on_chain_start review",
      "on_chain_end review",
      "on_chain_end LangGraph",
    ]);
    expect(events.filter((e) => e.event === "updates")).toHaveLength(2);
  });
});
