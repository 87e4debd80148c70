import { z } from "zod";
import { failOnMarker } from "./failure.ts";
import { joinReply, type Graph } from "./graph.ts";
import { lastHumanMessage } from "./messages.ts";

/** The `agent` graph's context: what an assistant version configures. */
export const AgentContext = z.strictObject({
  system_prompt: z.string().optional(),
  model: z.string().optional(),
});
export type AgentContext = z.output<typeof AgentContext>;

/**
 * The message graph `agent`: one node, `agent`, that appends one assistant message. The reply is
 * deterministic and shows the configuration it ran with, so a test can tell which assistant
 * version ran: `"<system_prompt> | model: <model> | you said: <last user message>"`, with the
 * parts that are not configured left out.
 */
export const agentGraph: Graph<AgentContext> = {
  graphId: "agent",
  description: "Message graph: one node, agent, that answers the last user message with the configuration it ran with.",
  contextSchema: AgentContext,
  nodes: [
    {
      name: "agent",
      // As tools/real-agent-server's `agent` answers, through a chat model with a canned reply.
      chatModel: "EchoChatModel",
      run({ values, context, messageId }) {
        const last = lastHumanMessage(values.messages ?? [])?.content;
        failOnMarker("agent", last);
        const content = joinReply(
          context.system_prompt,
          context.model === undefined ? undefined : `model: ${context.model}`,
          last === undefined ? "no user message yet" : `you said: ${last}`,
        );
        return { messages: [{ id: messageId, type: "ai", content, name: "agent" }] };
      },
    },
  ],
};
