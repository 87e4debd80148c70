// The `messages` and `messages-tuple` stream modes, as the open-source agent server streams them
// (its own API suite: "stream messages", "stream messages tuple", "stream mixed modes"; the shapes
// as tools/real-agent-server's `agent` graph shows them through the real server).
import { describe, expect, it } from "vitest";
import { createThread, streamRun, type WireEvent } from "./support.ts";

const say = (content: string) => ({ messages: [{ role: "user", content }] });
const names = (events: readonly WireEvent[]) => events.map((e) => e.event);

describe("stream mode messages-tuple", () => {
  it("each word of the chat model's reply as a [chunk, metadata] pair, the input not among them", async () => {
    const thread = await createThread();
    const { events } = await streamRun(thread.thread_id, { assistant_id: "agent", input: say("hi there"), stream_mode: "messages-tuple" });
    const runId = events[0]!.data.run_id;
    expect(names(events)).toEqual(["metadata", "messages", "messages", "messages", "messages"]);
    const pairs = events.slice(1).map((e) => e.data);
    expect(pairs.map(([chunk]) => chunk.content)).toEqual(["you ", "said: ", "hi ", "there"]);
    const [chunk, metadata] = pairs[0];
    expect(chunk).toEqual({
      content: "you ",
      tool_calls: [],
      invalid_tool_calls: [],
      tool_call_chunks: [],
      additional_kwargs: {},
      response_metadata: {},
      id: `run-${runId}-agent`,
      type: "ai",
    });
    expect(metadata).toMatchObject({
      tags: [],
      ls_integration: "langchain_chat_model",
      ls_provider: "EchoChatModel",
      ls_model_type: "chat",
      run_id: runId,
      thread_id: thread.thread_id,
      graph_id: "agent",
      langgraph_step: 1,
      langgraph_node: "agent",
      langgraph_triggers: ["branch:to:agent"],
      langgraph_path: ["__pregel_pull", "agent"],
    });
    expect(metadata.checkpoint_ns).toMatch(/^agent:/);
  });
});

describe("stream mode messages", () => {
  it("the input message complete, then the reply's metadata, its growing partials and the whole message", async () => {
    const thread = await createThread();
    const { events } = await streamRun(thread.thread_id, { assistant_id: "agent", input: say("hi there"), stream_mode: "messages" });
    const runId = events[0]!.data.run_id;
    const id = `run-${runId}-agent`;
    expect(names(events)).toEqual([
      "metadata",
      "messages/complete",
      "messages/metadata",
      "messages/partial",
      "messages/partial",
      "messages/partial",
      "messages/partial",
      "messages/complete",
    ]);
    const data = events.map((e) => e.data);
    expect(data[1]).toMatchObject([{ type: "human", content: "hi there" }]);
    expect(Object.keys(data[2])).toEqual([id]);
    expect(data[2][id].metadata).toMatchObject({ ls_provider: "EchoChatModel", langgraph_node: "agent", run_id: runId });
    expect(data.slice(3, 7).map(([m]) => m.content)).toEqual(["you ", "you said: ", "you said: hi ", "you said: hi there"]);
    expect(data.slice(3, 7).every(([m]) => m.id === id && m.type === "ai")).toBe(true);
    expect(data[7]).toMatchObject([{ id, type: "ai", content: "you said: hi there" }]);
  });

  it("with values: each message completes once, after the values that first hold it, and the stream ends with the reply", async () => {
    const thread = await createThread();
    await streamRun(thread.thread_id, { assistant_id: "agent", input: say("first"), stream_mode: "values" });
    const { events } = await streamRun(thread.thread_id, { assistant_id: "agent", input: say("hi there"), stream_mode: ["messages", "values"] });
    expect(names(events)).toEqual([
      "metadata",
      "values",
      "messages/complete",
      "messages/metadata",
      "messages/partial",
      "messages/partial",
      "messages/partial",
      "messages/partial",
      "values",
      "messages/complete",
    ]);
    // The thread's earlier messages complete with the input, as the real server finds them new in its first values.
    expect(events[2]!.data.map((m: { content: string }) => m.content)).toEqual(["first", "you said: first", "hi there"]);
    expect(events.at(-1)!.data.map((m: { content: string }) => m.content)).toEqual(["you said: hi there"]);
  });

  it("a node that is no chat model streams no partials, only its messages complete", async () => {
    const thread = await createThread();
    const { events } = await streamRun(thread.thread_id, { assistant_id: "pipeline", input: say("plan"), stream_mode: "messages" });
    expect(names(events)).toEqual(["metadata", "messages/complete", "messages/complete", "messages/complete"]);
  });
});
