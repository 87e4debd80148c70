import type { BaseMessage } from "@langchain/core/messages";

/** The text of the newest user message, if any. */
export function lastHumanText(messages: readonly BaseMessage[]): string | undefined {
  const last = messages.findLast((m) => m.getType() === "human");
  return last === undefined ? undefined : typeof last.content === "string" ? last.content : JSON.stringify(last.content);
}

/** The reply's parts that are set, joined as the emulator's graphs join them. */
export const joinReply = (...parts: Array<string | undefined>) => parts.filter((p) => p !== undefined && p !== "").join(" | ");
