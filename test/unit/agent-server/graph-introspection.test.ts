import { describe, expect, it } from "vitest";
import { drawGraph } from "../../../emulators/agent-server/assistants/graph-drawing.ts";
import { graphSchemas } from "../../../emulators/agent-server/assistants/graph-schemas.ts";
import { agentGraph } from "../../../emulators/agent-server/graphs/agent.ts";
import { pipelineGraph } from "../../../emulators/agent-server/graphs/pipeline.ts";

describe("graph drawing", () => {
  it("draws start, the nodes in order and end, joined by plain edges", () => {
    expect(drawGraph(pipelineGraph)).toEqual({
      nodes: [
        { id: "__start__", type: "schema", data: "__start__" },
        { id: "draft", type: "runnable", data: { name: "draft" } },
        { id: "review", type: "runnable", data: { name: "review" } },
        { id: "__end__", type: "schema", data: "__end__" },
      ],
      edges: [
        { source: "__start__", target: "draft" },
        { source: "draft", target: "review" },
        { source: "review", target: "__end__" },
      ],
    });
  });
});

describe("graph schemas", () => {
  it("derive the context schema from the graph's own, and describe messages as state, input and output", () => {
    const schemas = graphSchemas(agentGraph);
    expect(schemas.graph_id).toBe("agent");
    expect(schemas.context_schema).toEqual({
      title: "Context",
      type: "object",
      properties: { system_prompt: { type: "string" }, model: { type: "string" } },
      additionalProperties: false,
    });
    expect(graphSchemas(pipelineGraph).context_schema.properties).toEqual({ system_prompt: { type: "string" } });
    expect(schemas.state_schema).toMatchObject({ type: "object", properties: { messages: { type: "array", items: { required: ["id", "type", "content"] } } } });
    expect(schemas.input_schema.properties).toHaveProperty("messages");
    expect(schemas.config_schema).toEqual({ title: "Configurable", type: "object", properties: {} });
  });
});
