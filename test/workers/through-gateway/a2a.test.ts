// The official A2A JS SDK (@a2a-js/sdk) talks to an assistant through the gateway: its card
// resolver reads and parses the agent card, and its Client over the v0.3 JSON-RPC transport (the
// revision the agent server speaks: `message/send`, `tasks/get`) sends messages and reads tasks,
// every JSON-RPC answer held to the reference document.
import { Role, TaskState, type Message, type Part, type SendMessageResult, type Task } from "@a2a-js/sdk";
import { Client, DefaultAgentCardResolver } from "@a2a-js/sdk/client";
import { LegacyJsonRpcTransport } from "@a2a-js/sdk/compat/v0_3/client";
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { AGENT_SERVER_URL, agentServerFetch, createAssistant, freshCaller } from "../agent-server/support.ts";

/** A fetch through the gateway as one caller; the card path (which the document does not describe) skips the contract. */
function callerFetch(): typeof fetch {
  const caller = freshCaller();
  return async (input, init) => {
    const headers = new Headers(init?.headers);
    for (const [name, value] of Object.entries(caller)) headers.set(name, value);
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (url.pathname.endsWith("/.well-known/agent-card.json")) return exports.default.fetch(new Request(input, { ...init, headers }));
    return agentServerFetch(input, { ...init, headers });
  };
}

const textPart = (text: string): Part => ({ content: { $case: "text", value: text }, metadata: undefined, filename: "", mediaType: "" }) as Part;
const dataPart = (value: unknown): Part => ({ content: { $case: "data", value }, metadata: undefined, filename: "", mediaType: "" }) as Part;

function userMessage(parts: Part[], contextId = ""): Message {
  return { messageId: crypto.randomUUID(), contextId, taskId: "", role: Role.ROLE_USER, parts, metadata: undefined, extensions: [], referenceTaskIds: [] };
}

function asTask(result: SendMessageResult): Task {
  if (!("status" in result)) throw new Error(`expected a Task, got ${JSON.stringify(result)}`);
  return result as Task;
}

const textOf = (parts: readonly Part[]) => parts.map((p) => (p.content?.$case === "text" ? p.content.value : "")).join("");

describe("official A2A client through the gateway", () => {
  it("reads the agent card, sends messages on one context, and gets the task", async () => {
    const fetchImpl = callerFetch();
    const assistant = await createAssistant({
      graph_id: "agent",
      name: "a2a-pirate",
      description: "Answers like a pirate.",
      context: { system_prompt: "Arr." },
    });

    const resolver = new DefaultAgentCardResolver({ fetchImpl, legacyCompat: { enabled: true } });
    const card = await resolver.resolve(`${AGENT_SERVER_URL}/.well-known/agent-card.json?assistant_id=${assistant.assistant_id}`, "");
    expect(card.name).toBe("a2a-pirate");
    expect(card.description).toBe("Answers like a pirate.");
    expect(card.capabilities?.streaming).toBe(false);
    expect(card.supportedInterfaces.map((i) => [i.protocolBinding, i.protocolVersion])).toEqual([["JSONRPC", "0.3.0"]]);
    // The card names the endpoint as the client reaches it: the gateway's host and the local
    // /agent-server mount it took off (X-Forwarded-Prefix). The client follows the card.
    const endpoint = card.supportedInterfaces[0]!.url;
    expect(endpoint).toBe(`https://gateway.test/agent-server/a2a/${assistant.assistant_id}`);
    const client = new Client(new LegacyJsonRpcTransport({ endpoint, fetchImpl }), card);

    const first = asTask(await client.sendMessage({ tenant: "", message: userMessage([textPart("hello")]), configuration: undefined, metadata: undefined }));
    expect(first.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(first.artifacts.map((a) => [a.name, textOf(a.parts)])).toEqual([["Assistant Response", "Arr. | you said: hello"]]);
    expect(first.history.map((m) => [m.role, textOf(m.parts)])).toEqual([
      [Role.ROLE_USER, "hello"],
      [Role.ROLE_AGENT, "Arr. | you said: hello"],
    ]);

    const second = asTask(
      await client.sendMessage({
        tenant: "",
        message: userMessage([dataPart({ topic: "ships" }), textPart("again")], first.contextId),
        configuration: undefined,
        metadata: undefined,
      }),
    );
    expect(second.contextId).toBe(first.contextId);
    expect(second.id).not.toBe(first.id);
    expect(second.history).toHaveLength(4);
    expect(textOf(second.artifacts[0]!.parts)).toBe("Arr. | you said: again");

    const got = await client.getTask({ tenant: "", id: first.id, historyLength: 2 });
    expect(got.id).toBe(first.id);
    expect(got.contextId).toBe(first.contextId);
    expect(got.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    // The thread's messages as the first task left them, the last two.
    expect(got.history.map((m) => textOf(m.parts))).toEqual(["hello", "Arr. | you said: hello"]);

    await expect(client.getTask({ tenant: "", id: crypto.randomUUID() })).rejects.toThrow(/not found/i);
  });

  it("reports a failed run as a failed task", async () => {
    const fetchImpl = callerFetch();
    const card = await new DefaultAgentCardResolver({ fetchImpl, legacyCompat: { enabled: true } }).resolve(
      `${AGENT_SERVER_URL}/.well-known/agent-card.json?assistant_id=agent`,
      "",
    );
    const client = new Client(new LegacyJsonRpcTransport({ endpoint: `${AGENT_SERVER_URL}/a2a/agent`, fetchImpl }), card);
    const failed = asTask(
      await client.sendMessage({ tenant: "", message: userMessage([textPart("[[fail]]")]), configuration: undefined, metadata: undefined }),
    );
    expect(failed.status?.state).toBe(TaskState.TASK_STATE_FAILED);
    expect(textOf(failed.status!.message!.parts)).toMatch(/EmulatedNodeError/);
  });
});
