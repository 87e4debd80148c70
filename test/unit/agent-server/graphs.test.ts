import { describe, expect, it } from "vitest";
import { agentGraph } from "../../../emulators/agent-server/graphs/agent.ts";
import { EmulatedNodeError } from "../../../emulators/agent-server/graphs/failure.ts";
import { checkContext } from "../../../emulators/agent-server/graphs/context.ts";
import type { Graph, ThreadValues } from "../../../emulators/agent-server/graphs/graph.ts";
import { addMessages, FAILURE_MARKER, inputMessages, InvalidInputError, type Message } from "../../../emulators/agent-server/graphs/messages.ts";
import { pipelineGraph } from "../../../emulators/agent-server/graphs/pipeline.ts";
import { defaultAssistantId, findGraph, graphIds } from "../../../emulators/agent-server/graphs/registry.ts";

const human = (content: string, id = "h1"): Message => ({ id, type: "human", content });
const values = (...messages: Message[]): ThreadValues => ({ messages });
const reply = <C>(graph: Graph<C>, node: number, context: C, state: ThreadValues) =>
  graph.nodes[node]!.run({ values: state, context, messageId: "m" }).messages[0]!.content;

describe("graph registry", () => {
  it("deploys agent, pipeline and approval, with default assistant ids uuid5(NAMESPACE_URL, graph_id)", () => {
    expect(graphIds()).toEqual(["agent", "pipeline", "approval"]);
    expect(findGraph("agent")).toBe(agentGraph);
    expect(findGraph("nope")).toBeUndefined();
    // Values computed independently with Python: uuid.uuid5(uuid.NAMESPACE_URL, "agent").
    expect(defaultAssistantId("agent")).toBe("fe096781-5601-53d2-b2f6-0d3403f7e9ca");
    expect(defaultAssistantId("pipeline")).toBe("024bfc19-7d06-5d5c-92b5-cec6be8620ae");
  });
});

describe("agent graph", () => {
  it("answers the last user message with the configuration it ran with", () => {
    const state = values(human("first", "a"), { id: "b", type: "ai", content: "x" }, human("second", "c"));
    expect(reply(agentGraph, 0, {}, state)).toBe("you said: second");
    expect(reply(agentGraph, 0, { system_prompt: "You are terse." }, state)).toBe("You are terse. | you said: second");
    expect(reply(agentGraph, 0, { system_prompt: "P", model: "m-1" }, state)).toBe("P | model: m-1 | you said: second");
    expect(reply(agentGraph, 0, {}, values())).toBe("no user message yet");
  });

  it("appends one ai message named after the node, with the id it is given", () => {
    const update = agentGraph.nodes[0]!.run({ values: values(human("q")), context: {}, messageId: "run-1-agent" });
    expect(update).toEqual({ messages: [{ id: "run-1-agent", type: "ai", content: "you said: q", name: "agent" }] });
  });

  it("fails on the failure marker in the last user message only", () => {
    expect(() => reply(agentGraph, 0, {}, values(human(`please ${FAILURE_MARKER}`)))).toThrow(EmulatedNodeError);
    expect(reply(agentGraph, 0, {}, values(human(FAILURE_MARKER, "a"), human("fine", "b")))).toBe("you said: fine");
  });
});

describe("pipeline graph", () => {
  it("drafts, then reviews with the system prompt; the marker fails review", () => {
    expect(pipelineGraph.nodes.map((n) => n.name)).toEqual(["draft", "review"]);
    expect(reply(pipelineGraph, 0, {}, values(human("t")))).toBe("draft: t");
    expect(reply(pipelineGraph, 1, { system_prompt: "Ed." }, values(human("t")))).toBe("Ed. | reviewed: t");
    expect(reply(pipelineGraph, 0, {}, values(human(FAILURE_MARKER)))).toBe(`draft: ${FAILURE_MARKER}`);
    expect(() => reply(pipelineGraph, 1, {}, values(human(FAILURE_MARKER)))).toThrow(/Node "review" failed on purpose/);
  });
});

describe("context schemas", () => {
  it("accept the declared optional strings and refuse other types and keys, as 422 errors under body.context", () => {
    expect(checkContext(agentGraph as unknown as Graph, { system_prompt: "x", model: "y" })).toEqual([]);
    expect(checkContext(agentGraph as unknown as Graph, {})).toEqual([]);
    expect(checkContext(agentGraph as unknown as Graph, { model: 1 })).toEqual([
      { type: "string_type", loc: ["body", "context", "model"], msg: "Input should be a valid string", input: 1 },
    ]);
    expect(checkContext(agentGraph as unknown as Graph, { temperature: 1 })).toEqual([
      {
        type: "extra_forbidden",
        loc: ["body", "context", "temperature"],
        msg: "Extra inputs are not permitted (graph 'agent' takes system_prompt, model)",
        input: 1,
      },
    ]);
  });
});

describe("input messages", () => {
  let n = 0;
  const newId = () => `id${++n}`;

  it("reads roles, types, bare strings and text blocks, keeping ids that are given", () => {
    n = 0;
    expect(
      inputMessages(
        {
          messages: [
            { role: "user", content: "a" },
            { type: "human", content: "b", id: "given" },
            "c",
            { role: "assistant", content: [{ type: "text", text: "d" }, "e"] },
            { role: "System", content: "f" },
          ],
        },
        newId,
      ),
    ).toEqual([
      { id: "id1", type: "human", content: "a" },
      { id: "given", type: "human", content: "b" },
      { id: "id2", type: "human", content: "c" },
      { id: "id3", type: "ai", content: "de" },
      { id: "id4", type: "system", content: "f" },
    ]);
    expect(inputMessages({ messages: "single" }, newId)).toEqual([{ id: "id5", type: "human", content: "single" }]);
  });

  it("adds nothing for no input or no messages", () => {
    expect(inputMessages(null, newId)).toEqual([]);
    expect(inputMessages(undefined, newId)).toEqual([]);
    expect(inputMessages({ other: 1 }, newId)).toEqual([]);
  });

  it("refuses what is not a message list, saying where", () => {
    expect(() => inputMessages("hi", newId)).toThrow(InvalidInputError);
    expect(() => inputMessages([1], newId)).toThrow(/got a list/);
    expect(() => inputMessages({ messages: [{ role: "robot", content: "x" }] }, newId)).toThrow(/input.messages\[0\] has role "robot"/);
    expect(() => inputMessages({ messages: [{ role: "user", content: 5 }] }, newId)).toThrow(/input.messages\[0\].content/);
    expect(() => inputMessages({ messages: [null] }, newId)).toThrow(/got null/);
  });

  it("add_messages appends, and replaces a message with the same id", () => {
    const a = human("a", "1");
    const b = human("b", "2");
    expect(addMessages([a], [b])).toEqual([a, b]);
    expect(addMessages([a, b], [human("A", "1")])).toEqual([human("A", "1"), b]);
  });
});
