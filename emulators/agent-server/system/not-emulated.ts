import type { Context } from "hono";

/**
 * The protocols the agent server also speaks and the emulator does not: a 501 whose detail says
 * what is missing and what to use instead, never a 404 that reads like a wrong URL.
 */
export const NOT_EMULATED = {
  a2a: "A2A (the Agent-to-Agent protocol, POST /a2a/{assistant_id}) is not emulated by the agent-server emulator. Run the assistant with POST /threads/{thread_id}/runs or POST /runs/wait instead.",
  mcp: "MCP (the Model Context Protocol endpoint /mcp) is not emulated by the agent-server emulator. Run the assistant with POST /threads/{thread_id}/runs or POST /runs/wait instead.",
} as const;

export const notEmulated = (c: Context, what: keyof typeof NOT_EMULATED) => c.json({ detail: NOT_EMULATED[what] }, 501);
