// POST /a2a/{assistant_id} (A2A 0.3 over JSON-RPC) and the agent card, called directly, every
// answer held to the reference document (the card, which the document does not describe, is checked
// by shape here and by the official client's parser in the through-gateway test).
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { AGENT_DEFAULT_ID, AGENT_SERVER_URL, createAssistant, freshCaller, send, UUID } from "./support.ts";

async function a2a(assistantId: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await send("POST", `/a2a/${assistantId}`, {
    rawBody: typeof body === "string" ? body : JSON.stringify(body),
    headers: { accept: "application/json", ...headers },
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

const sendMessage = (parts: unknown[], extra: Record<string, unknown> = {}, id: string | number = "1") => ({
  jsonrpc: "2.0",
  id,
  method: "message/send",
  params: { message: { role: "user", messageId: crypto.randomUUID(), kind: "message", parts, ...extra } },
});

describe("A2A message/send and tasks/get", () => {
  it("answers a completed Task; the same contextId continues the conversation on its thread", async () => {
    const assistant = await createAssistant({ graph_id: "agent", context: { system_prompt: "Arr." } });
    const first = await a2a(assistant.assistant_id, sendMessage([{ kind: "text", text: "hello" }]));
    expect(first.status).toBe(200);
    const task = first.body.result;
    expect(first.body).toMatchObject({ jsonrpc: "2.0", id: "1" });
    expect(task).toMatchObject({ kind: "task", id: expect.stringMatching(UUID), contextId: expect.stringMatching(UUID), status: { state: "completed" } });
    expect(task.artifacts).toEqual([
      {
        artifactId: expect.any(String),
        name: "Assistant Response",
        description: `Response from assistant ${assistant.assistant_id}`,
        parts: [{ kind: "text", text: "Arr. | you said: hello" }],
      },
    ]);
    expect(task.history.map((m: any) => [m.role, m.parts[0].text])).toEqual([
      ["user", "hello"],
      ["agent", "Arr. | you said: hello"],
    ]);

    const second = await a2a(assistant.assistant_id, sendMessage([{ kind: "text", text: "again" }], { contextId: task.contextId }, 2));
    expect(second.body.id).toBe(2);
    expect(second.body.result.contextId).toBe(task.contextId);
    expect(second.body.result.history).toHaveLength(4);
    // The context is a thread of the agent server, with both runs on it.
    const runs = await send("GET", `/threads/${task.contextId}/runs`);
    expect(((await runs.json()) as unknown[]).length).toBe(2);

    const got = await a2a(assistant.assistant_id, { jsonrpc: "2.0", id: "g", method: "tasks/get", params: { id: task.id, historyLength: 1 } });
    expect(got.body.result).toMatchObject({
      id: task.id,
      contextId: task.contextId,
      status: { state: "completed" },
      artifacts: [{ parts: [{ text: "Arr. | you said: hello" }] }],
    });
    expect(got.body.result.history).toHaveLength(1);
    // The document's spelling, and a context that is not the task's.
    expect(
      (await a2a(assistant.assistant_id, { jsonrpc: "2.0", id: "g", method: "tasks/get", params: { taskId: task.id, contextId: task.contextId } })).body.result
        .id,
    ).toBe(task.id);
    const elsewhere = await a2a(assistant.assistant_id, {
      jsonrpc: "2.0",
      id: "g",
      method: "tasks/get",
      params: { id: task.id, contextId: crypto.randomUUID() },
    });
    expect(elsewhere.body.error.code).toBe(-32001);
  });

  it("takes data parts as input fields, and reports a failed run as a failed task", async () => {
    const data = await a2a(AGENT_DEFAULT_ID, sendMessage([{ kind: "data", data: { messages: [{ role: "user", content: "from data" }] } }]));
    expect(data.body.result.artifacts[0].parts[0].text).toBe("you said: from data");
    const mixed = await a2a(
      "agent",
      sendMessage([
        { kind: "data", data: { note: 1 } },
        { kind: "text", text: "text too" },
      ]),
    );
    expect(mixed.body.result.artifacts[0].parts[0].text).toBe("you said: text too");
    const failed = await a2a("agent", sendMessage([{ kind: "text", text: "[[fail]]" }]));
    expect(failed.body.result.status).toMatchObject({
      state: "failed",
      message: { role: "agent", parts: [{ kind: "text", text: expect.stringContaining("EmulatedNodeError") }] },
    });
    expect(failed.body.result.artifacts).toBeUndefined();
  });

  it("answers JSON-RPC errors for bad params, unknown tasks, assistants and methods", async () => {
    const errorOf = async (assistantId: string, body: unknown) => (await a2a(assistantId, body)).body.error;
    expect(await errorOf("agent", { jsonrpc: "2.0", id: 1, method: "message/send", params: {} })).toEqual({
      code: -32602,
      message: "Missing 'message' in params",
    });
    expect((await errorOf("agent", sendMessage([]))).code).toBe(-32602);
    expect((await errorOf("agent", sendMessage([{ kind: "file", file: { uri: "x" } }]))).code).toBe(-32005);
    expect((await errorOf("agent", sendMessage([{ kind: "text", text: "hi" }], { contextId: "not-a-uuid" }))).code).toBe(-32602);
    expect(await errorOf(crypto.randomUUID(), sendMessage([{ kind: "text", text: "hi" }]))).toMatchObject({
      code: -32602,
      message: expect.stringContaining("not found"),
    });
    expect((await errorOf("agent", { jsonrpc: "2.0", id: 1, method: "tasks/get", params: { id: crypto.randomUUID() } })).code).toBe(-32001);
    expect((await errorOf("agent", { jsonrpc: "2.0", id: 1, method: "tasks/get", params: {} })).code).toBe(-32602);
    expect((await errorOf("agent", { jsonrpc: "2.0", id: 1, method: "tasks/get", params: { id: crypto.randomUUID(), historyLength: 11 } })).code).toBe(-32602);
    expect((await errorOf("agent", { jsonrpc: "2.0", id: 1, method: "message/stream", params: {} })).code).toBe(-32004);
    expect(await errorOf("agent", { jsonrpc: "2.0", id: 1, method: "tasks/list" })).toEqual({ code: -32601, message: "Method not found: tasks/list" });
  });

  it("refuses at the HTTP level what is no A2A request: 400, with the JSON-RPC code beside the detail", async () => {
    expect(await a2a("agent", "{oops")).toMatchObject({ status: 400, body: { detail: expect.any(String), error: { code: -32700 } } });
    expect(await a2a("agent", { jsonrpc: "2.0", method: "message/send" })).toMatchObject({ status: 400, body: { error: { code: -32600 } } });
    expect(await a2a("agent", { jsonrpc: "2.0", id: 1, method: "tasks/get", params: [] })).toMatchObject({ status: 400, body: { error: { code: -32600 } } });
    expect(await a2a("agent", sendMessage([{ kind: "text", text: "hi" }]), { accept: "text/event-stream" })).toMatchObject({
      status: 400,
      body: { detail: "Accept header must include application/json" },
    });
    expect((await a2a("not-a-graph", sendMessage([{ kind: "text", text: "hi" }]))).status).toBe(422);
  });
});

describe("A2A agent card", () => {
  // Not in the reference document, so read without the contract checker.
  const card = (query: string, headers: Record<string, string> = {}) =>
    exports.default.fetch(new Request(`${AGENT_SERVER_URL}/.well-known/agent-card.json${query}`, { headers: { ...freshCaller(), ...headers } }));

  it("describes an assistant as an A2A 0.3 agent, its url on the origin the client called", async () => {
    const assistant = await createAssistant({ graph_id: "agent", name: "card-test", description: "Answers like a pirate." });
    const res = await card(`?assistant_id=${assistant.assistant_id}`, { "x-forwarded-host": "agents.example.com", "x-forwarded-proto": "https" });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      protocolVersion: "0.3.0",
      name: "card-test",
      description: "Answers like a pirate.",
      url: `https://agents.example.com/a2a/${assistant.assistant_id}`,
      preferredTransport: "JSONRPC",
      capabilities: { streaming: false, pushNotifications: false },
      skills: [{ id: `${assistant.assistant_id}-main`, metadata: { inputSchema: { properties: ["messages"], supportsA2A: true } } }],
    });
    const mounted = (await (
      await card(`?assistant_id=${assistant.assistant_id}`, {
        "x-forwarded-host": "127.0.0.1:8787",
        "x-forwarded-proto": "http",
        "x-forwarded-prefix": "/agent-server",
      })
    ).json()) as { url: string };
    expect(mounted.url).toBe(`http://127.0.0.1:8787/agent-server/a2a/${assistant.assistant_id}`);
    const odd = (await (await card(`?assistant_id=${assistant.assistant_id}`, { "x-forwarded-host": "a b", "x-forwarded-prefix": "/x/../y?z" })).json()) as {
      url: string;
    };
    expect(odd.url).toBe(`https://agent-server.test/a2a/${assistant.assistant_id}`);
    const byGraph = (await (await card("?assistant_id=agent")).json()) as { url: string };
    expect(byGraph.url).toMatch(new RegExp(`/a2a/${AGENT_DEFAULT_ID}$`));
  });

  it("is 400 without an assistant or for an unknown one", async () => {
    expect((await card("")).status).toBe(400);
    const unknown = await card(`?assistant_id=${crypto.randomUUID()}`);
    expect(unknown.status).toBe(400);
    expect(((await unknown.json()) as { detail: string }).detail).toMatch(/not found/);
  });
});
