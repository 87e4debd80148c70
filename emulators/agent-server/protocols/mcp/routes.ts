import { Hono } from "hono";
import type { AgentServerEnv } from "../../env.ts";
import { serverInfo } from "../../system/info.ts";
import { accepts, httpRefusal, readRpcMessage, RPC_ERRORS, rpcAnswer } from "../json-rpc.ts";
import { answerToolCall, listTools } from "./tools.ts";

/** The MCP revisions the endpoint speaks, newest first; `initialize` answers the client's when listed, else the newest. */
export const MCP_PROTOCOL_VERSIONS = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"] as const;

/** `initialize`'s result: the negotiated revision, tools only (no resources, prompts or list changes), and who answers. */
function initializeResult(params: Record<string, unknown>) {
  const requested = params.protocolVersion;
  const protocolVersion = MCP_PROTOCOL_VERSIONS.find((v) => v === requested) ?? MCP_PROTOCOL_VERSIONS[0];
  return {
    protocolVersion,
    capabilities: { tools: { listChanged: false } },
    serverInfo: { name: "LangGraph", version: serverInfo().version },
    instructions: 'Each assistant of this agent server is a tool: call it with its graph\'s input, e.g. {"messages": [{"role": "user", "content": "hi"}]}.',
  };
}

/**
 * MCP over the Streamable HTTP transport, stateless as the real server runs it: no session
 * (`Mcp-Session-Id` is never issued), every POST one JSON-RPC message answered with one JSON
 * response, never a stream. `GET` (the server-to-client stream) is 405 and `DELETE` (ending a
 * session) 404, as the document gives them. The document writes the path `/mcp/`; the gateway drops
 * trailing slashes, so both are served.
 */
const PATHS = ["/mcp", "/mcp/"];

export const mcpRoutes = new Hono<AgentServerEnv>()
  .on("POST", PATHS, async (c) => {
    if (!accepts(c.req.header("accept"), "application/json") || !accepts(c.req.header("accept"), "text/event-stream")) {
      return httpRefusal(c, 400, "Not Acceptable: the Accept header must list both application/json and text/event-stream (MCP Streamable HTTP).");
    }
    // Sent by the client on every request after initialize: one this server does not speak is refused, as the spec asks.
    const version = c.req.header("mcp-protocol-version");
    if (version !== undefined && !MCP_PROTOCOL_VERSIONS.includes(version as (typeof MCP_PROTOCOL_VERSIONS)[number])) {
      return httpRefusal(c, 400, `Unsupported MCP-Protocol-Version '${version}'; supported: ${MCP_PROTOCOL_VERSIONS.join(", ")}.`);
    }
    const message = await readRpcMessage(c);
    if ("error" in message) return httpRefusal(c, message.status, message.error.message, message.error);
    // Notifications (notifications/initialized, cancellations) and responses need no answer.
    if (message.kind !== "request") return c.body(null, 202);
    const { id, method, params } = message;
    switch (method) {
      case "initialize":
        return rpcAnswer(c, id, { result: initializeResult(params) });
      case "ping":
        return rpcAnswer(c, id, { result: {} });
      case "tools/list":
        return rpcAnswer(c, id, await listTools(c.env, params));
      case "tools/call":
        // Its headers at once, its answer when the run is over (tools.ts).
        return answerToolCall(c, id, params);
      default:
        return rpcAnswer(c, id, { error: { code: RPC_ERRORS.methodNotFound, message: `Method not found: ${method}` } });
    }
  })
  .on("GET", PATHS, (c) =>
    c.json({ detail: "Method Not Allowed: this MCP server is stateless and opens no server-to-client stream; POST JSON-RPC messages instead." }, 405, {
      allow: "POST, DELETE",
    }),
  )
  .on("DELETE", PATHS, (c) => c.json({ detail: "Not Found: this MCP server is stateless and has no session to terminate." }, 404));
