import { z } from "zod";
import { failOnMarker } from "./failure.ts";
import { interrupt, type Graph, type ThreadValues } from "./graph.ts";
import { lastHumanMessage } from "./messages.ts";

/** The `approval` graph's context. */
export const ApprovalContext = z.strictObject({
  /** What the review step asks the human (its interrupt's `question`). */
  question: z.string().optional(),
});
export type ApprovalContext = z.output<typeof ApprovalContext>;

/** A resume value the review step cannot read: the run fails with this error, saying what it takes. */
export class InvalidResumeError extends Error {
  override name = "InvalidResumeError";
}

/** The human's answer to the review, read from the resume value. */
export interface ReviewDecision {
  readonly approved: boolean;
  readonly comment?: string;
}

const DEFAULT_QUESTION = "Approve this draft?";

/**
 * Reads `command.resume` as the review step takes it: `true`/`false`, `"approve"`/`"reject"` (any
 * case), or `{"approved": <boolean>, "comment"?: <string>}`. Anything else is refused with the
 * forms it takes, rather than guessed at.
 */
export function readDecision(resume: unknown): ReviewDecision {
  if (typeof resume === "boolean") return { approved: resume };
  if (typeof resume === "string") {
    const word = resume.trim().toLowerCase();
    if (word === "approve") return { approved: true };
    if (word === "reject") return { approved: false };
  }
  if (resume !== null && typeof resume === "object" && !Array.isArray(resume)) {
    const { approved, comment } = resume as Record<string, unknown>;
    if (typeof approved === "boolean" && (comment === undefined || typeof comment === "string")) {
      return comment === undefined ? { approved } : { approved, comment };
    }
  }
  throw new InvalidResumeError(
    `human_review cannot read the resume value ${JSON.stringify(resume) ?? "undefined"}: send true or false, "approve" or "reject", or {"approved": <boolean>, "comment": <string, optional>}.`,
  );
}

/** The draft the review is about: the newest message `draft` wrote. */
const draftOf = (values: ThreadValues) => values.messages?.findLast((m) => m.name === "draft")?.content ?? "";

/**
 * A message graph with a human approval step: `draft` writes `"draft: <last user message>"`;
 * `human_review` pauses (LangGraph's `interrupt`) with `{"question", "draft", "options"}` and,
 * resumed with `command.resume`, records the decision as `"review: approved"` or
 * `"review: rejected[: <comment>]"`; `finalize` writes `"published: <draft>"` or
 * `"not published: <draft>"`. The failure marker fails `finalize`.
 */
export const approvalGraph: Graph<ApprovalContext> = {
  graphId: "approval",
  description: "Message graph with a human approval step: draft, then human_review (pauses until resumed with a decision), then finalize.",
  contextSchema: ApprovalContext,
  nodes: [
    {
      name: "draft",
      run({ values, messageId }) {
        const last = lastHumanMessage(values.messages ?? [])?.content ?? "";
        return { messages: [{ id: messageId, type: "ai", content: `draft: ${last}`, name: "draft" }] };
      },
    },
    {
      name: "human_review",
      run(input) {
        const answer = interrupt(input, { question: input.context.question ?? DEFAULT_QUESTION, draft: draftOf(input.values), options: ["approve", "reject"] });
        const decision = readDecision(answer);
        const content = decision.approved ? "review: approved" : `review: rejected${decision.comment ? `: ${decision.comment}` : ""}`;
        return { messages: [{ id: input.messageId, type: "ai", content, name: "human_review" }] };
      },
    },
    {
      name: "finalize",
      run({ values, messageId }) {
        failOnMarker("finalize", lastHumanMessage(values.messages ?? [])?.content);
        const review = values.messages?.findLast((m) => m.name === "human_review")?.content ?? "";
        const content = `${review === "review: approved" ? "published" : "not published"}: ${draftOf(values)}`;
        return { messages: [{ id: messageId, type: "ai", content, name: "finalize" }] };
      },
    },
  ],
};
