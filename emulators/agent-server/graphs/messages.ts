/**
 * Chat messages as the message graphs keep them in `values.messages`: LangChain's serialized
 * shape reduced to what the emulator needs (`type` is "human", "ai", "system" or "tool").
 */
export interface Message {
  readonly id: string;
  readonly type: MessageType;
  readonly content: string;
  /** The node that wrote an "ai" message, or the name a client gave a message; absent otherwise. */
  readonly name?: string;
}
export type MessageType = "human" | "ai" | "system" | "tool";

/** A run's input was not something the graph can take; the run fails with an `error` event. */
export class InvalidInputError extends Error {
  override name = "InvalidInputError";
}

/**
 * A user message containing this text makes the graph's last node fail, deterministically, so
 * clients can exercise the `error` event and the thread's `error` status (docs/agent-server.md).
 */
export const FAILURE_MARKER = "[[fail]]";

// OpenAI-style roles and LangChain message types both name the sender; the graph stores types.
const SENDER: Readonly<Record<string, MessageType>> = {
  user: "human",
  human: "human",
  assistant: "ai",
  ai: "ai",
  system: "system",
  tool: "tool",
};

/**
 * The messages of a run's `input` (`{"messages": [...]}`), as LangGraph's `add_messages` reducer
 * would accept them: a bare string is a human message; an object names its sender with `role` or
 * `type`; content is a string or a list of text blocks. No input (null) adds nothing.
 *
 * @example
 * inputMessages({ messages: [{ role: "user", content: "hi" }] }, () => "m1")
 * // [{ id: "m1", type: "human", content: "hi" }]
 */
export function inputMessages(input: unknown, newId: () => string): Message[] {
  if (input === null || input === undefined) return [];
  if (typeof input !== "object" || Array.isArray(input)) {
    throw new InvalidInputError(`Expected the run input to be an object like {"messages": [...]}, got ${describe(input)}.`);
  }
  const raw = (input as Record<string, unknown>).messages;
  if (raw === undefined || raw === null) return [];
  const list = Array.isArray(raw) ? raw : [raw];
  return list.map((item, index) => toMessage(item, index, newId));
}

function toMessage(item: unknown, index: number, newId: () => string): Message {
  if (typeof item === "string") return { id: newId(), type: "human", content: item };
  if (item === null || typeof item !== "object" || Array.isArray(item)) {
    throw new InvalidInputError(`input.messages[${index}] should be a string or an object with "role" and "content", got ${describe(item)}.`);
  }
  const record = item as Record<string, unknown>;
  const sender = record.role ?? record.type;
  const type = typeof sender === "string" ? SENDER[sender.toLowerCase()] : undefined;
  if (!type) {
    throw new InvalidInputError(
      `input.messages[${index}] has role ${JSON.stringify(sender ?? null)}; expected one of ${Object.keys(SENDER)
        .map((s) => JSON.stringify(s))
        .join(", ")}.`,
    );
  }
  const content = textOf(record.content);
  if (content === undefined) {
    throw new InvalidInputError(`input.messages[${index}].content should be a string or a list of {"type": "text", "text": ...} blocks.`);
  }
  const id = typeof record.id === "string" && record.id !== "" ? record.id : newId();
  // A message keeps the name it carries (the node that wrote it), as LangChain's messages do.
  const name = typeof record.name === "string" && record.name !== "" ? record.name : undefined;
  return { id, type, content, ...(name !== undefined && { name }) };
}

function textOf(content: unknown): string | undefined {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return undefined;
  const parts: string[] = [];
  for (const block of content) {
    if (typeof block === "string") parts.push(block);
    else if (block && typeof block === "object" && typeof (block as { text?: unknown }).text === "string") parts.push((block as { text: string }).text);
    else return undefined;
  }
  return parts.join("");
}

/**
 * `add_messages`: appends, except that a message whose id is already in the list replaces it
 * (so a client may resend or edit a message by id).
 */
export function addMessages(current: readonly Message[], added: readonly Message[]): Message[] {
  const result = [...current];
  for (const message of added) {
    const at = result.findIndex((m) => m.id === message.id);
    if (at >= 0) result[at] = message;
    else result.push(message);
  }
  return result;
}

/** The newest message the user sent, which the graphs answer. */
export function lastHumanMessage(messages: readonly Message[]): Message | undefined {
  return messages.findLast((m) => m.type === "human");
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  return `a ${typeof value}`;
}
