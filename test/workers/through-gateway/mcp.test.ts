// The official MCP TypeScript SDK client (@modelcontextprotocol/sdk: Client over
// StreamableHTTPClientTransport) drives the agent server's MCP endpoint through the gateway, its
// fetch the gateway Worker's own, every answer held to the reference document.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { LATEST_PROTOCOL_VERSION } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { AGENT_SERVER_URL, agentServerFetch, createAssistant, freshCaller } from "../agent-server/support.ts";

/** An MCP client connected (initialize, notifications/initialized) to the agent server's /mcp/. */
async function connectedClient(seen: Request[] = []): Promise<Client> {
  const caller = freshCaller();
  const transport = new StreamableHTTPClientTransport(new URL(`${AGENT_SERVER_URL}/mcp/`), {
    fetch: async (input, init) => {
      const headers = new Headers(init?.headers);
      for (const [name, value] of Object.entries(caller)) headers.set(name, value);
      seen.push(new Request(input, { ...init, headers }));
      return agentServerFetch(input, { ...init, headers });
    },
  });
  const client = new Client({ name: "tollgate-test", version: "1.0.0" });
  await client.connect(transport);
  return client;
}

describe("official MCP client through the gateway", () => {
  it("initializes on the newest revision, lists the assistants as tools and calls one", async () => {
    const seen: Request[] = [];
    const client = await connectedClient(seen);
    expect(client.getServerVersion()).toMatchObject({ name: "LangGraph" });
    expect(client.getServerCapabilities()).toEqual({ tools: { listChanged: false } });
    // The client names the negotiated revision on every request after initialize.
    const assistant = await createAssistant({
      graph_id: "agent",
      name: `mcp-sdk-${crypto.randomUUID().slice(0, 8)}`,
      context: { system_prompt: "Via MCP." },
      description: "Says where it was called from.",
    });

    const tools = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor === undefined ? {} : { cursor });
      tools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    const tool = tools.find((t) => t.name === assistant.name);
    expect(tool).toMatchObject({
      title: assistant.name,
      description: "Says where it was called from.",
      inputSchema: { type: "object", properties: { messages: { type: "array" } } },
    });
    expect(tools.find((t) => t.name === "agent")).toBeDefined();

    const result = await client.callTool({ name: assistant.name, arguments: { messages: [{ role: "user", content: "hello" }] } });
    expect(result.isError).toBe(false);
    const [content] = result.content as { type: string; text: string }[];
    expect(content!.type).toBe("text");
    expect(JSON.parse(content!.text).messages.map((m: { type: string; content: string }) => [m.type, m.content])).toEqual([
      ["human", "hello"],
      ["ai", "Via MCP. | you said: hello"],
    ]);

    const failed = await client.callTool({ name: "agent", arguments: { messages: [{ role: "user", content: "please [[fail]]" }] } });
    expect(failed.isError).toBe(true);
    expect((failed.content as { text: string }[])[0]!.text).toMatch(/^EmulatedNodeError: /);

    await expect(client.callTool({ name: `no-such-tool-${crypto.randomUUID()}`, arguments: {} })).rejects.toThrow(/Unknown tool/);
    await client.ping();

    const afterInit = seen.filter((r) => r.method === "POST").slice(1);
    expect(afterInit.length).toBeGreaterThan(3);
    for (const request of afterInit) expect(request.headers.get("mcp-protocol-version")).toBe(LATEST_PROTOCOL_VERSION);
    expect(seen[0]!.headers.get("accept")).toMatch(/application\/json.*text\/event-stream/);
    // No session was issued, so closing sends no DELETE.
    await client.close();
    expect(seen.some((r) => r.method === "DELETE")).toBe(false);
  });
});
