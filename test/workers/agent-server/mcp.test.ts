// POST /mcp/ (MCP over Streamable HTTP, stateless) called directly, every answer held to the
// reference document: the transport's refusals, JSON-RPC errors, and tools from the assistants.
import { describe, expect, it } from "vitest";
import { AGENT_DEFAULT_ID, createAssistant, send } from "./support.ts";

const BOTH = "application/json, text/event-stream";

async function mcp(body: unknown, headers: Record<string, string> = {}) {
  const res = await send("POST", "/mcp/", { rawBody: typeof body === "string" ? body : JSON.stringify(body), headers: { accept: BOTH, ...headers } });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined, headers: res.headers };
}

const request = (method: string, params?: unknown, id: string | number = 1) => ({ jsonrpc: "2.0", id, method, ...(params === undefined ? {} : { params }) });

describe("MCP transport", () => {
  it("initialize negotiates the client's revision when it is spoken, else the newest", async () => {
    const known = await mcp(request("initialize", { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } }, "init-1"));
    expect(known.status).toBe(200);
    expect(known.body).toMatchObject({
      jsonrpc: "2.0",
      id: "init-1",
      result: { protocolVersion: "2025-06-18", capabilities: { tools: { listChanged: false } }, serverInfo: { name: "LangGraph" } },
    });
    expect(known.headers.get("mcp-session-id")).toBeNull();
    const unknown = await mcp(request("initialize", { protocolVersion: "1999-01-01", capabilities: {}, clientInfo: { name: "t", version: "1" } }, 7));
    expect(unknown.body).toMatchObject({ id: 7, result: { protocolVersion: "2025-11-25" } });
  });

  // (The gateway forwards /mcp/ as /mcp: the through-gateway client test goes that way.)
  it("answers notifications and responses 202 with no body", async () => {
    const res = await send("POST", "/mcp/", { body: { jsonrpc: "2.0", method: "notifications/initialized" }, headers: { accept: BOTH } });
    expect(res.status).toBe(202);
    expect(await res.text()).toBe("");
    const response = await mcp({ jsonrpc: "2.0", id: 3, result: {} });
    expect(response.status).toBe(202);
  });

  it("refuses what is no JSON-RPC message with 400 and the JSON-RPC error code", async () => {
    const parse = await mcp("{not json");
    expect(parse).toMatchObject({ status: 400, body: { detail: expect.stringContaining("Parse error"), error: { code: -32700 }, id: null } });
    for (const bad of [
      [request("ping")],
      { jsonrpc: "1.0", id: 1, method: "ping" },
      { jsonrpc: "2.0", id: 1, method: 5 },
      { jsonrpc: "2.0", id: {}, method: "ping" },
      { jsonrpc: "2.0" },
      42,
    ]) {
      const res = await mcp(bad);
      expect(res.status, JSON.stringify(bad)).toBe(400);
      expect(res.body.error.code, JSON.stringify(bad)).toBe(-32600);
    }
  });

  it("requires an Accept header listing both media types, and a spoken MCP-Protocol-Version", async () => {
    for (const accept of ["application/json", "text/event-stream", "text/html"]) {
      const res = await mcp(request("ping"), { accept });
      expect(res.status, accept).toBe(400);
      expect(res.body.detail).toMatch(/Accept/);
    }
    expect((await mcp(request("ping"), { accept: "*/*" })).status).toBe(200);
    const version = await mcp(request("ping"), { "mcp-protocol-version": "2030-01-01" });
    expect(version).toMatchObject({ status: 400, body: { detail: expect.stringContaining("MCP-Protocol-Version") } });
    expect((await mcp(request("ping"), { "mcp-protocol-version": "2025-06-18" })).body).toEqual({ jsonrpc: "2.0", id: 1, result: {} });
  });

  it("answers an unknown method -32601 and bad tool calls -32602", async () => {
    expect((await mcp(request("resources/list"))).body).toEqual({
      jsonrpc: "2.0",
      id: 1,
      error: { code: -32601, message: "Method not found: resources/list" },
    });
    const noName = await mcp(request("tools/call", { arguments: {} }));
    expect(noName.body.error.code).toBe(-32602);
    const unknown = await mcp(request("tools/call", { name: "no-such-tool", arguments: {} }));
    expect(unknown.body.error).toEqual({ code: -32602, message: "Unknown tool: no-such-tool" });
    const badArgs = await mcp(request("tools/call", { name: "agent", arguments: [1] }));
    expect(badArgs.body.error).toMatchObject({ code: -32602, message: expect.stringContaining("arguments") });
    const badCursor = await mcp(request("tools/list", { cursor: "x" }));
    expect(badCursor.body.error.code).toBe(-32602);
  });

  it("GET is 405 (no server stream) and DELETE 404 (no session), as documented", async () => {
    const get = await send("GET", "/mcp/", { headers: { accept: "text/event-stream" } });
    expect(get.status).toBe(405);
    expect(((await get.json()) as { detail: string }).detail).toMatch(/stateless/);
    const del = await send("DELETE", "/mcp/");
    expect(del.status).toBe(404);
  });
});

describe("MCP tools", () => {
  it("lists every assistant as a tool with its graph's input schema, named so each name calls one assistant", async () => {
    const named = await createAssistant({
      graph_id: "agent",
      name: `mcp-pirate-${crypto.randomUUID().slice(0, 8)}`,
      context: { system_prompt: "Arr." },
      description: "A pirate.",
    });
    const unnamed = await createAssistant({ graph_id: "pipeline" });
    const tools: any[] = [];
    let cursor: string | undefined;
    do {
      const page = await mcp(request("tools/list", cursor === undefined ? {} : { cursor }));
      tools.push(...page.body.result.tools);
      cursor = page.body.result.nextCursor;
    } while (cursor !== undefined);
    const byName = new Map(tools.map((t) => [t.name, t]));
    expect(byName.size).toBe(tools.length);
    expect(byName.get("agent")).toMatchObject({ title: "agent", inputSchema: { type: "object", properties: { messages: { type: "array" } } } });
    expect(byName.get(named.name)).toMatchObject({ title: named.name, description: "A pirate." });
    // "pipeline" is its default assistant's name (a graph id): the other one is listed by its id.
    expect(byName.get(unnamed.assistant_id)).toMatchObject({ title: "pipeline" });
  });

  it("tools/call runs the assistant statelessly and answers its output; a failed run is isError", async () => {
    const named = await createAssistant({ graph_id: "agent", name: `mcp-poet-${crypto.randomUUID().slice(0, 8)}`, context: { system_prompt: "A poet." } });
    const input = { messages: [{ role: "user", content: "hello" }] };
    for (const name of [named.name, named.assistant_id]) {
      const call = await mcp(request("tools/call", { name, arguments: input }));
      expect(call.body.result.isError).toBe(false);
      const output = JSON.parse(call.body.result.content[0].text);
      expect(output.messages.at(-1)).toMatchObject({ type: "ai", content: "A poet. | you said: hello" });
    }
    const byGraph = await mcp(request("tools/call", { name: "agent", arguments: input }));
    expect(JSON.parse(byGraph.body.result.content[0].text).messages.at(-1).content).toBe("you said: hello");
    const failed = await mcp(request("tools/call", { name: AGENT_DEFAULT_ID, arguments: { messages: [{ role: "user", content: "[[fail]]" }] } }));
    expect(failed.body.result).toEqual({ isError: true, content: [{ type: "text", text: expect.stringMatching(/^EmulatedNodeError: /) }] });
    const refusedInput = await mcp(request("tools/call", { name: "agent", arguments: { messages: [{ role: "robot", content: "x" }] } }));
    expect(refusedInput.body.result).toMatchObject({ isError: true, content: [{ text: expect.stringMatching(/^InvalidInputError/) }] });
  });
});
