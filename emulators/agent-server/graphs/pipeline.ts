import { z } from "zod";
import { failOnMarker } from "./failure.ts";
import { joinReply, type Graph } from "./graph.ts";
import { lastHumanMessage } from "./messages.ts";

/** The `pipeline` graph's context. */
export const PipelineContext = z.strictObject({
  system_prompt: z.string().optional(),
});
export type PipelineContext = z.output<typeof PipelineContext>;

/**
 * A two-node message graph, `draft` then `review`, so one run streams two `updates` events.
 * `draft` appends `"draft: <last user message>"`; `review` appends
 * `"<system_prompt> | reviewed: <last user message>"`. The failure marker fails `review`, after
 * `draft` has streamed its update.
 */
export const pipelineGraph: Graph<PipelineContext> = {
  graphId: "pipeline",
  description: "Message graph with two nodes, draft then review, each appending one assistant message.",
  contextSchema: PipelineContext,
  nodes: [
    {
      name: "draft",
      run({ values, messageId }) {
        const last = lastHumanMessage(values.messages ?? [])?.content ?? "";
        return { messages: [{ id: messageId, type: "ai", content: `draft: ${last}`, name: "draft" }] };
      },
    },
    {
      name: "review",
      run({ values, context, messageId }) {
        const last = lastHumanMessage(values.messages ?? [])?.content;
        failOnMarker("review", last);
        const content = joinReply(context.system_prompt, `reviewed: ${last ?? ""}`);
        return { messages: [{ id: messageId, type: "ai", content, name: "review" }] };
      },
    },
  ],
};
