import { AIMessage } from "@langchain/core/messages";
import { Annotation, interrupt, MessagesAnnotation, StateGraph, type LangGraphRunnableConfig } from "@langchain/langgraph";
import { lastHumanText } from "./messages.ts";

const ApprovalContext = Annotation.Root({
  /** What the review step asks the human (its interrupt's `question`). */
  question: Annotation<string | undefined>(),
});

/** The human's answer as the emulator's review step reads it: a boolean, "approve"/"reject", or {approved, comment}. */
function approved(resume: unknown): { approved: boolean; comment?: string } {
  if (typeof resume === "boolean") return { approved: resume };
  if (typeof resume === "string") return { approved: resume.trim().toLowerCase() === "approve" };
  const { approved = false, comment } = (resume ?? {}) as { approved?: boolean; comment?: string };
  return { approved, ...(comment !== undefined && { comment }) };
}

const draftOf = (messages: MessagesAnnotationState) => String(messages.findLast((m) => m.name === "draft")?.content ?? "");
type MessagesAnnotationState = typeof MessagesAnnotation.State.messages;

/**
 * The human-in-the-loop graph `approval`, as the emulator's: `draft` writes `"draft: <last user
 * message>"`; `human_review` pauses (LangGraph's `interrupt`) with `{question, draft, options}`
 * and, resumed with a Command, records `"review: approved"` or `"review: rejected[: comment]"`;
 * `finalize` writes `"published: <draft>"` or `"not published: <draft>"`.
 */
export const graph = new StateGraph(MessagesAnnotation, ApprovalContext)
  .addNode("draft", (state) => ({ messages: [new AIMessage({ content: `draft: ${lastHumanText(state.messages) ?? ""}`, name: "draft" })] }))
  .addNode("human_review", (state, config: LangGraphRunnableConfig<typeof ApprovalContext.State>) => {
    const question = config.context?.question ?? "Approve this draft?";
    const decision = approved(interrupt({ question, draft: draftOf(state.messages), options: ["approve", "reject"] }));
    const content = decision.approved ? "review: approved" : `review: rejected${decision.comment ? `: ${decision.comment}` : ""}`;
    return { messages: [new AIMessage({ content, name: "human_review" })] };
  })
  .addNode("finalize", (state) => {
    const review = state.messages.findLast((m) => m.name === "human_review")?.content;
    const content = `${review === "review: approved" ? "published" : "not published"}: ${draftOf(state.messages)}`;
    return { messages: [new AIMessage({ content, name: "finalize" })] };
  })
  .addEdge("__start__", "draft")
  .addEdge("draft", "human_review")
  .addEdge("human_review", "finalize")
  .compile();
