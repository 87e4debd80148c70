import { RPC_ERRORS, type RpcError } from "../json-rpc.ts";

/** A2A's error for parts the agent cannot take (ContentTypeNotSupportedError). */
export const CONTENT_TYPE_NOT_SUPPORTED = -32005;

/** A `message/send` read: the run's input and the context (thread) it continues, if the client named one. */
export interface SentMessage {
  readonly input: Record<string, unknown>;
  readonly contextId: string | undefined;
}

const invalidParams = (message: string): RpcError => ({ code: RPC_ERRORS.invalidParams, message });

/**
 * Reads `message/send`'s params as the real server does: text parts become messages of the
 * sender's role (`user` -> human, `agent`/`assistant` -> assistant), data parts are laid into the
 * input as fields (`{"messages": ...}` in a data part is the graph's messages); file parts are
 * refused. The context is `message.contextId`, or (the document's spelling) `thread.threadId`.
 */
export function readSentMessage(params: Record<string, unknown>): SentMessage | RpcError {
  const message = params.message as Record<string, unknown> | undefined;
  if (message === null || typeof message !== "object" || Array.isArray(message)) return invalidParams("Missing 'message' in params");
  const { parts, role, messageId, contextId } = message;
  if (!Array.isArray(parts) || parts.length === 0) return invalidParams("Message must contain at least one part");
  if (role !== undefined && role !== "user" && role !== "agent" && role !== "assistant")
    return invalidParams(`message.role must be 'user' or 'agent', got ${JSON.stringify(role)}`);
  if (messageId !== undefined && typeof messageId !== "string") return invalidParams("message.messageId must be a string");
  const threadId = (params.thread as { threadId?: unknown } | undefined)?.threadId;
  const context = contextId ?? threadId;
  if (context !== undefined && context !== null && typeof context !== "string") return invalidParams("message.contextId must be a string");

  const messages: { role: string; content: string }[] = [];
  const data: Record<string, unknown> = {};
  for (const [index, part] of parts.entries()) {
    const kind = (part as { kind?: unknown } | null)?.kind;
    if (kind === "text") {
      const text = (part as { text?: unknown }).text;
      if (typeof text !== "string") return invalidParams(`message.parts[${index}]: a text part must have a string 'text'`);
      messages.push({ role: role === "user" || role === undefined ? "human" : "assistant", content: text });
    } else if (kind === "data") {
      const value = (part as { data?: unknown }).data;
      if (value === null || typeof value !== "object" || Array.isArray(value))
        return invalidParams(`message.parts[${index}]: a data part must have a JSON object 'data'`);
      Object.assign(data, value);
    } else {
      return {
        code: CONTENT_TYPE_NOT_SUPPORTED,
        message: `Unsupported part kind ${JSON.stringify(kind ?? null)} at message.parts[${index}]. A2A agents support 'text' and 'data' parts only.`,
      };
    }
  }
  const input: Record<string, unknown> = { ...data };
  if (messages.length > 0) input.messages = [...(Array.isArray(data.messages) ? data.messages : []), ...messages];
  return { input, contextId: (context as string | null | undefined) ?? undefined };
}
