import { Annotation, MessagesAnnotation, StateGraph, type LangGraphRunnableConfig } from "@langchain/langgraph";
import { EchoChatModel } from "./echo-model.ts";
import { joinReply, lastHumanText } from "./messages.ts";

/** What an assistant of `agent` configures (its `context`), as the emulator's `agent` takes it. */
const AgentContext = Annotation.Root({
  system_prompt: Annotation<string | undefined>(),
  model: Annotation<string | undefined>(),
});

/**
 * The message graph `agent`, as the emulator's (emulators/agent-server/graphs/agent.ts): one node,
 * `agent`, that answers `"<system_prompt> | model: <model> | you said: <last user message>"`
 * (parts not configured left out), its words streamed as message chunks by a chat model that
 * needs no model (echo-model.ts).
 */
export const graph = new StateGraph(MessagesAnnotation, AgentContext)
  .addNode("agent", async (state, config: LangGraphRunnableConfig<typeof AgentContext.State>) => {
    const context: Partial<typeof AgentContext.State> = config.context ?? {};
    const last = lastHumanText(state.messages);
    const reply = joinReply(
      context.system_prompt,
      context.model === undefined ? undefined : `model: ${context.model}`,
      last === undefined ? "no user message yet" : `you said: ${last}`,
    );
    const message = await new EchoChatModel(reply).invoke(state.messages, config);
    return { messages: [message] };
  })
  .addEdge("__start__", "agent")
  .compile();
