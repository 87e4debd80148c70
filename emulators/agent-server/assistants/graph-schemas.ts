import { z } from "zod";
import type { Graph } from "../graphs/graph.ts";

type JsonSchema = Record<string, unknown>;

// A message as the graphs keep it in `values.messages` (graphs/messages.ts).
const MESSAGE: JsonSchema = {
  title: "Message",
  type: "object",
  properties: {
    id: { type: "string", title: "Id" },
    type: { type: "string", enum: ["human", "ai", "system", "tool"], title: "Type" },
    content: { type: "string", title: "Content" },
    name: { type: "string", title: "Name", description: "The node that wrote an ai message." },
  },
  required: ["id", "type", "content"],
};

// A message as a run's input may send it: a bare string, or an object naming its sender by `role`
// (OpenAI style) or `type` (LangChain style), with text content or a list of text blocks.
const INPUT_MESSAGE: JsonSchema = {
  title: "InputMessage",
  anyOf: [
    { type: "string" },
    {
      type: "object",
      properties: {
        role: { type: "string", enum: ["user", "human", "assistant", "ai", "system", "tool"] },
        type: { type: "string", enum: ["user", "human", "assistant", "ai", "system", "tool"] },
        content: {
          anyOf: [
            { type: "string" },
            { type: "array", items: { anyOf: [{ type: "string" }, { type: "object", properties: { text: { type: "string" } }, required: ["text"] }] } },
          ],
        },
        id: { type: "string" },
      },
      required: ["content"],
    },
  ],
};

const messagesState = (title: string, item: JsonSchema): JsonSchema => ({
  title,
  type: "object",
  properties: { messages: { title: "Messages", type: "array", items: item } },
});

/** The JSON Schema of a graph's context, from the zod schema its runs are checked with. */
function contextSchema(graph: Graph): JsonSchema {
  const { $schema: _dialect, ...schema } = z.toJSONSchema(graph.contextSchema as z.ZodType) as JsonSchema;
  return { title: "Context", ...schema };
}

/**
 * GET /assistants/{id}/schemas, derived from the graph definition: the state is the messages the
 * nodes append to (input and output are that state, the input accepting every message form a run
 * may send), the context is the graph's own context schema, and `config_schema` is empty because
 * the graphs read nothing from `config.configurable`.
 */
export function graphSchemas(graph: Graph) {
  const name = graph.graphId;
  return {
    graph_id: name,
    input_schema: messagesState(`${name}Input`, INPUT_MESSAGE),
    output_schema: messagesState(`${name}Output`, MESSAGE),
    state_schema: messagesState(`${name}State`, MESSAGE),
    config_schema: { title: "Configurable", type: "object", properties: {} },
    context_schema: contextSchema(graph),
  };
}
