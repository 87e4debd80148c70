import { describe, expect, it } from "vitest";
import type { Graph } from "../../../emulators/agent-server/graphs/graph.ts";
import { pipelineGraph } from "../../../emulators/agent-server/graphs/pipeline.ts";
import { applyStateUpdate } from "../../../emulators/agent-server/threads/state-update.ts";

const graph = pipelineGraph as unknown as Graph;
const base = { messages: [{ id: "h1", type: "human" as const, content: "hi" }] };
const update = (values: unknown, asNode?: string, lastWriter?: string) => applyStateUpdate(graph, base, { values, asNode, lastWriter }, () => "new");

describe("applyStateUpdate", () => {
  it("adds messages as add_messages does (new ids appended, known ids replaced)", () => {
    expect(update({ messages: [{ role: "assistant", content: "yo" }] })).toMatchObject({
      ok: true,
      values: { messages: [base.messages[0], { id: "new", type: "ai", content: "yo" }] },
    });
    expect(update({ messages: [{ id: "h1", type: "human", content: "edited" }] })).toMatchObject({
      ok: true,
      values: { messages: [{ id: "h1", content: "edited" }] },
    });
    expect(update(null)).toMatchObject({ ok: true, values: base });
  });

  it("writes as as_node, else the node that wrote the checkpoint, else the last node; next follows it", () => {
    expect(update({}, "draft")).toMatchObject({ ok: true, asNode: "draft", next: ["review"] });
    expect(update({}, undefined, "draft")).toMatchObject({ asNode: "draft", next: ["review"] });
    expect(update({}, undefined, "__start__")).toMatchObject({ asNode: "review", next: [] });
  });

  it("refuses a node the graph lacks, a key its state lacks, a list, and messages it cannot read (422 value_error)", () => {
    expect(update({}, "critic")).toEqual({ ok: false, errors: [expect.objectContaining({ type: "value_error", loc: ["body", "as_node"], input: "critic" })] });
    expect(update({ mood: 1 })).toEqual({ ok: false, errors: [expect.objectContaining({ loc: ["body", "values", "mood"], input: 1 })] });
    expect(update([{ messages: [] }])).toEqual({ ok: false, errors: [expect.objectContaining({ loc: ["body", "values"] })] });
    expect(update({ messages: [{ role: "robot", content: "x" }] })).toEqual({
      ok: false,
      errors: [expect.objectContaining({ loc: ["body", "values", "messages"] })],
    });
  });
});
