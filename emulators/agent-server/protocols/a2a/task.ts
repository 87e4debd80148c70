import type { JsonObject, JsonValue } from "../../../shared/pydantic/json.ts";
import type { RunStatus } from "../../runs/schema.ts";

/** A2A 0.3's task states, as the real server maps run statuses onto them. */
export type TaskState = "submitted" | "working" | "input-required" | "completed" | "failed" | "canceled";

/** The A2A state of a run: pending is submitted, running working, interrupted waits for input. */
export function taskState(status: RunStatus): TaskState {
  switch (status) {
    case "pending":
      return "submitted";
    case "running":
      return "working";
    case "success":
      return "completed";
    case "interrupted":
      return "input-required";
    default:
      return "failed";
  }
}

type Stored = { readonly type?: string; readonly role?: string; readonly content?: unknown };

/** A thread's messages as A2A Messages of the task (human and user messages are the user's, all else the agent's). */
export function historyOf(values: JsonValue | undefined, ids: { taskId: string; contextId: string }, newId: () => string): JsonObject[] {
  const messages = (values as { messages?: unknown } | null | undefined)?.messages;
  if (!Array.isArray(messages)) return [];
  return (messages as Stored[]).map((m) => ({
    role: m.type === "human" || m.role === "user" ? "user" : "agent",
    parts: [{ kind: "text", text: typeof m.content === "string" ? m.content : JSON.stringify(m.content ?? "") }],
    messageId: newId(),
    taskId: ids.taskId,
    contextId: ids.contextId,
    kind: "message",
  }));
}

/** The reply a task's artifact carries: the last AI message's text, or the whole output as JSON when there is none. */
export function replyOf(values: JsonValue): string {
  const messages = (values as { messages?: unknown } | null)?.messages;
  if (Array.isArray(messages)) {
    const last = (messages as Stored[]).findLast((m) => m.type === "ai" || m.role === "assistant");
    if (last && typeof last.content === "string") return last.content;
  }
  return JSON.stringify(values);
}

/** What a task is built from: the run (task id), its thread (context id), its state and its outcome. */
export interface TaskFacts {
  readonly taskId: string;
  readonly contextId: string;
  readonly assistantId: string;
  readonly state: TaskState;
  /** The run's outcome once it is over: the thread's values, or `{"__error__": ...}`. */
  readonly outcome: JsonValue | undefined;
  /** When the state was reached (ISO 8601). */
  readonly timestamp: string;
  /** At most this many messages of history (tasks/get's `historyLength`). */
  readonly historyLength?: number | undefined;
}

/**
 * An A2A 0.3 Task as the real server answers `message/send` and `tasks/get`: the run's id, its
 * thread as the context, the thread's messages as history; a completed task carries the reply
 * as its artifact, a failed one the error in its status message.
 */
export function toTask(facts: TaskFacts, newId: () => string = () => crypto.randomUUID()): JsonObject {
  const ids = { taskId: facts.taskId, contextId: facts.contextId };
  const agentMessage = (text: string) => ({ role: "agent", parts: [{ kind: "text", text }], messageId: newId(), ...ids, kind: "message" });
  const failure = (facts.outcome as { __error__?: { error?: string; message?: string } } | null | undefined)?.__error__;
  let history = failure ? [] : historyOf(facts.outcome, ids, newId);
  if (facts.historyLength !== undefined) history = facts.historyLength === 0 ? [] : history.slice(-facts.historyLength);
  const status: JsonObject = { state: facts.state, timestamp: facts.timestamp };
  if (facts.state === "failed")
    status.message = agentMessage(`Error executing assistant: ${failure?.error ?? "the run did not finish"}${failure?.message ? `: ${failure.message}` : ""}`);
  const task: JsonObject = { id: facts.taskId, contextId: facts.contextId, status, history, kind: "task" };
  if (facts.state === "completed" && facts.outcome !== undefined) {
    task.artifacts = [
      {
        artifactId: newId(),
        name: "Assistant Response",
        description: `Response from assistant ${facts.assistantId}`,
        parts: [{ kind: "text", text: replyOf(facts.outcome) }],
      },
    ];
  }
  return task;
}
