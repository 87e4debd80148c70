import { describe, expect, it } from "vitest";
import { agentGraph } from "../../../src/emulators/agent-server/graphs/agent.ts";
import type { Graph } from "../../../src/emulators/agent-server/graphs/graph.ts";
import { pipelineGraph } from "../../../src/emulators/agent-server/graphs/pipeline.ts";
import { executeRun, type RunPlan, type StreamMode } from "../../../src/emulators/agent-server/runs/execute.ts";
import type { ServerSentEvent } from "../../../src/emulators/shared/sse.ts";

/** Runs a plan, recording events and where the pauses fell between them. */
async function run(graph: Graph<any>, streamModes: StreamMode[], input: unknown, extra: Partial<RunPlan> = {}) {
  const log: Array<ServerSentEvent | "pause"> = [];
  let n = 0;
  const outcome = await executeRun(
    { runId: "r1", graph: graph as Graph, context: {}, values: {}, input, streamModes, ...extra },
    { emit: (e) => log.push(e), pause: async () => void log.push("pause"), newId: () => `in${++n}` },
  );
  return { log, outcome, names: log.map((e) => (e === "pause" ? "pause" : e.event)) };
}

const say = (content: string) => ({ messages: [{ role: "user", content }] });

describe("executeRun", () => {
  it("emits metadata, the input values, then per step (after a pause) updates and values", async () => {
    const { log, names, outcome } = await run(pipelineGraph, ["updates", "values"], say("x"));
    expect(names).toEqual(["metadata", "values", "pause", "updates", "values", "pause", "updates", "values"]);
    expect(log[0]).toEqual({ event: "metadata", data: { run_id: "r1", attempt: 1 } });
    expect(log[3]).toEqual({ event: "updates", data: { draft: { messages: [{ id: "run-r1-draft", type: "ai", content: "draft: x", name: "draft" }] } } });
    expect(outcome.status).toBe("success");
    expect(outcome.values.messages!.map((m) => m.content)).toEqual(["x", "draft: x", "reviewed: x"]);
    expect((log.at(-1) as ServerSentEvent).data).toEqual(outcome.values);
  });

  it("emits only the modes asked for; silent modes add nothing", async () => {
    expect((await run(agentGraph, ["updates"], say("x"))).names).toEqual(["metadata", "pause", "updates"]);
    expect((await run(agentGraph, ["values"], say("x"))).names).toEqual(["metadata", "values", "pause", "values"]);
    expect((await run(agentGraph, ["messages", "custom"], say("x"))).names).toEqual(["metadata", "pause"]);
  });

  it("runs with the plan's context and the thread's earlier values", async () => {
    const earlier = { messages: [{ id: "old", type: "human" as const, content: "earlier" }] };
    const { outcome } = await run(agentGraph, ["updates"], null, { context: { system_prompt: "S" }, values: earlier });
    expect(outcome.values.messages!.map((m) => m.content)).toEqual(["earlier", "S | you said: earlier"]);
  });

  it("ends a failing step with one error event and keeps the values written before it", async () => {
    const { log, names, outcome } = await run(pipelineGraph, ["updates"], say("[[fail]]"));
    expect(names).toEqual(["metadata", "pause", "updates", "pause", "error"]);
    expect(log.at(-1)).toEqual({ event: "error", data: { error: "EmulatedNodeError", message: expect.stringContaining("review") } });
    expect(outcome).toMatchObject({ status: "error", error: { error: "EmulatedNodeError" } });
    expect(outcome.values.messages!.map((m) => m.content)).toEqual(["[[fail]]", "draft: [[fail]]"]);
  });

  it("fails before any step on input the graph cannot take", async () => {
    const { names, outcome } = await run(agentGraph, ["values"], 42);
    expect(names).toEqual(["metadata", "error"]);
    expect(outcome).toMatchObject({ status: "error", values: {}, error: { error: "InvalidInputError" } });
  });
});
