import { describe, expect, it } from "vitest";
import { agentGraph } from "../../../emulators/agent-server/graphs/agent.ts";
import { approvalGraph, readDecision } from "../../../emulators/agent-server/graphs/approval.ts";
import { NodeInterrupt, type Graph } from "../../../emulators/agent-server/graphs/graph.ts";
import { pipelineGraph } from "../../../emulators/agent-server/graphs/pipeline.ts";
import { defaultAssistantId } from "../../../emulators/agent-server/graphs/registry.ts";
import { executeRun, type RunPlan, type StepRecord } from "../../../emulators/agent-server/runs/execute.ts";
import type { ServerSentEvent } from "../../../emulators/shared/sse.ts";
import { say } from "../../support/run-input.ts";

/** Runs a plan, recording events, checkpoints (source, next, writer) and the interrupts saved. */
async function run(graph: Graph<any>, plan: Partial<RunPlan>) {
  const events: ServerSentEvent[] = [];
  const steps: Array<[string, readonly string[], string | undefined]> = [];
  const saved: Array<[string, unknown]> = [];
  let n = 0;
  const outcome = await executeRun(
    { runId: "r1", graph: graph as Graph, context: {}, values: {}, input: null, streamModes: ["updates", "values"], ...plan },
    {
      emit: (e) => events.push(e),
      pause: async () => {},
      newId: () => `id-${++n}`,
      checkpoint: (step: StepRecord) => void steps.push([step.source, step.next, step.writes ? Object.keys(step.writes)[0] : undefined]),
      interrupted: (node, interrupts) => saved.push([node, interrupts]),
    },
  );
  return { events, steps, saved, outcome };
}

describe("the approval graph", () => {
  it("is deployed with its default assistant", () => {
    // uuid.uuid5(uuid.NAMESPACE_URL, "approval"), computed with Python.
    expect(defaultAssistantId("approval")).toBe("e234584d-b7bf-527f-9d06-ba77f8f5172d");
    expect(approvalGraph.nodes.map((n) => n.name)).toEqual(["draft", "human_review", "finalize"]);
  });

  it("reads the decisions it documents, and refuses anything else", () => {
    expect(readDecision(true)).toEqual({ approved: true });
    expect(readDecision(" Reject ")).toEqual({ approved: false });
    expect(readDecision({ approved: false, comment: "no" })).toEqual({ approved: false, comment: "no" });
    for (const bad of ["yes", 1, null, [], { approved: "true" }, { approved: true, comment: 3 }]) {
      expect(() => readDecision(bad)).toThrow(/InvalidResumeError|send true or false/);
    }
  });

  it("human_review pauses with what to approve when nothing resumes it", () => {
    const values = {
      messages: [
        { id: "h", type: "human" as const, content: "x" },
        { id: "d", type: "ai" as const, content: "draft: x", name: "draft" },
      ],
    };
    const review = approvalGraph.nodes[1]!;
    expect(() => review.run({ values, context: {}, messageId: "m" })).toThrow(NodeInterrupt);
    const answered = review.run({ values, context: {}, messageId: "m", interrupt: () => "approve" });
    expect(answered.messages[0]!.content).toBe("review: approved");
  });
});

describe("executeRun: interrupts", () => {
  it("a node's interrupt ends the run: no update saved, the interrupt under updates and values", async () => {
    const { events, steps, saved, outcome } = await run(approvalGraph, { input: say("x") });
    // One id, made by the run's id maker, names the interrupt everywhere it appears.
    const id = outcome.interrupts![0]!.id;
    expect(id).toMatch(/^id/);
    const interrupt = { value: { question: "Approve this draft?", draft: "draft: x", options: ["approve", "reject"] }, id };
    expect(events.slice(-2)).toEqual([
      { event: "updates", data: { __interrupt__: [interrupt] } },
      { event: "values", data: { messages: expect.any(Array), __interrupt__: [interrupt] } },
    ]);
    // The last checkpoint names the paused node next; it wrote nothing.
    expect(steps.at(-1)).toEqual(["loop", ["human_review"], "draft"]);
    expect(saved).toEqual([["human_review", [interrupt]]]);
    expect(outcome).toMatchObject({ status: "interrupted", interrupts: [interrupt] });
  });

  it("a resume value goes to the paused node once; later nodes run on", async () => {
    const first = await run(approvalGraph, { input: say("x") });
    const { steps, outcome } = await run(approvalGraph, {
      values: first.outcome.values,
      resume: { next: ["human_review"] },
      command: { resume: { node: "human_review", value: false } },
    });
    expect(steps.map((s) => s[2])).toEqual(["human_review", "finalize"]);
    expect(outcome.status).toBe("success");
    expect(outcome.values.messages!.map((m) => m.content).slice(-2)).toEqual(["review: rejected", "not published: draft: x"]);
  });

  it("breakpoints stop before or after a node with an empty interrupt list under updates only", async () => {
    const before = await run(agentGraph, { input: say("x"), interruptBefore: ["agent"] });
    expect(before.events.map((e) => e.event)).toEqual(["metadata", "values", "updates"]);
    expect(before.events.at(-1)!.data).toEqual({ __interrupt__: [] });
    expect(before.outcome).toMatchObject({ status: "interrupted", interrupts: [] });
    expect(before.steps.at(-1)).toEqual(["loop", ["agent"], undefined]);

    const after = await run(pipelineGraph, { input: say("x"), interruptAfter: "*", streamModes: ["values"] });
    expect(after.steps.at(-1)).toEqual(["loop", ["review"], "draft"]);
    expect(after.events.map((e) => e.event)).toEqual(["metadata", "values", "values"]);
    expect(after.outcome.status).toBe("interrupted");
  });

  it("going on from a checkpoint applies command.update first and does not stop before its first node", async () => {
    const earlier = { messages: [{ id: "h", type: "human" as const, content: "x" }] };
    const { outcome, steps } = await run(agentGraph, {
      values: earlier,
      resume: { next: ["agent"] },
      interruptBefore: "*",
      command: { update: say("y") },
    });
    expect(outcome.values.messages!.map((m) => m.content)).toEqual(["x", "y", "you said: y"]);
    expect(steps).toEqual([["loop", [], "agent"]]);
  });

  it("an update with nothing left to run is saved as its own checkpoint", async () => {
    const { outcome, steps } = await run(agentGraph, { resume: { next: [] }, command: { update: say("late") } });
    expect(outcome.status).toBe("success");
    expect(steps).toEqual([["loop", [], "__start__"]]);
  });
});
