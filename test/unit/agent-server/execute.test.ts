import { describe, expect, it } from "vitest";
import { agentGraph } from "../../../emulators/agent-server/graphs/agent.ts";
import type { Graph } from "../../../emulators/agent-server/graphs/graph.ts";
import { pipelineGraph } from "../../../emulators/agent-server/graphs/pipeline.ts";
import { executeRun, type RunHooks, type RunPlan, type StreamMode } from "../../../emulators/agent-server/runs/execute.ts";
import type { ServerSentEvent } from "../../../emulators/shared/sse.ts";
import { say } from "../../support/run-input.ts";

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
    expect((await run(agentGraph, ["debug", "custom"], say("x"))).names).toEqual(["metadata", "pause"]);
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

describe("executeRun: checkpoints, cancelling, resuming, holding", () => {
  /** Runs a plan recording checkpoints (source, next, writer) and events. */
  async function record(plan: Partial<RunPlan> & { input: unknown }, hooks: Partial<RunHooks> = {}) {
    const steps: Array<[string, readonly string[], string | undefined]> = [];
    const events: string[] = [];
    const failures: string[] = [];
    const outcome = await executeRun(
      { runId: "r1", graph: pipelineGraph as Graph, context: {}, values: {}, streamModes: ["updates"], ...plan },
      {
        emit: (e) => events.push(e.event),
        pause: async () => {},
        newId: () => "in",
        checkpoint: (step) => void steps.push([step.source, step.next, step.writes ? Object.keys(step.writes)[0] : undefined]),
        failed: (node) => failures.push(node),
        ...hooks,
      },
    );
    return { steps, events, failures, outcome };
  }

  it("saves the input, the start and each node's step, each naming the nodes next", async () => {
    const { steps } = await record({ input: say("x") });
    expect(steps).toEqual([
      ["input", ["__start__"], "__start__"],
      ["loop", ["draft"], undefined],
      ["loop", ["review"], "draft"],
      ["loop", [], "review"],
    ]);
  });

  it("records which node failed, after the checkpoints before it", async () => {
    const { steps, failures } = await record({ input: say("[[fail]]") });
    expect(steps.map((s) => s[2])).toEqual(["__start__", undefined, "draft"]);
    expect(failures).toEqual(["review"]);
    expect((await record({ input: 42 })).failures).toEqual(["__start__"]);
  });

  it("stops between steps, silently, once its signal is aborted", async () => {
    const controller = new AbortController();
    // Cancelled while pausing before the first node.
    const { steps, events, outcome } = await record({ input: say("x") }, { signal: controller.signal, pause: async () => void controller.abort("interrupt") });
    expect(outcome.status).toBe("cancelled");
    expect(steps.map((s) => s[0])).toEqual(["input", "loop"]);
    expect(events).toEqual(["metadata"]);
  });

  it("resumes at the nodes next, without saving the input again, as the attempt it is", async () => {
    const values = {
      messages: [
        { id: "h", type: "human" as const, content: "x" },
        { id: "d", type: "ai" as const, content: "draft: x", name: "draft" },
      ],
    };
    const log: unknown[] = [];
    const { steps, outcome } = await record({ input: say("ignored"), values, resume: { next: ["review"] }, attempt: 2 }, { emit: (e) => log.push(e) });
    expect(log[0]).toEqual({ event: "metadata", data: { run_id: "r1", attempt: 2 } });
    expect(steps).toEqual([["loop", [], "review"]]);
    expect(outcome.values.messages!.map((m) => m.content)).toEqual(["x", "draft: x", "reviewed: x"]);
  });

  it("holds before the last node on the hold marker, until cancelled", async () => {
    const controller = new AbortController();
    let held = 0;
    const { steps, outcome } = await record(
      { input: say("wait [[hold]]") },
      {
        signal: controller.signal,
        hold: async () => {
          held++;
          controller.abort("interrupt");
        },
      },
    );
    expect(held).toBe(1);
    expect(outcome.status).toBe("cancelled");
    expect(steps.map((s) => s[2])).toEqual(["__start__", undefined, "draft"]);
  });
});
