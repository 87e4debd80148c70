// The official JS client (@langchain/langgraph-sdk) drives the emulator through the gateway: the
// test a real integration would be. Its fetch is the gateway Worker's own fetch (no network),
// with every response held to the reference document (contract/contract.ts).
import type { Client } from "@langchain/langgraph-sdk";
import { describe, expect, it } from "vitest";
import { freshTag, officialClient } from "../agent-server/support.ts";

type Chunk = { event: string; data: any };

/** Streams one run with the client and collects its events and the run id it announced. */
async function run(client: Client, threadId: string, assistantId: string, text: string) {
  const chunks: Chunk[] = [];
  let created: { run_id: string; thread_id?: string } | undefined;
  for await (const chunk of client.runs.stream(threadId, assistantId, {
    input: { messages: [{ role: "user", content: text }] },
    streamMode: ["updates", "values"],
    onRunCreated: (meta) => {
      created = meta;
    },
  })) {
    chunks.push(chunk as Chunk);
  }
  const reply = chunks.find((c) => c.event === "updates")?.data.agent.messages[0].content as string;
  return { chunks, created, reply };
}

describe("official JS client through the gateway", () => {
  it("creates, runs, updates, lists versions, rolls back, runs by graph id and deletes", async () => {
    const client = officialClient();
    const tag = freshTag();

    const assistant = await client.assistants.create({ graphId: "agent", context: { system_prompt: "You are version one." }, metadata: tag });
    expect(assistant).toMatchObject({ graph_id: "agent", version: 1, name: "agent", context: { system_prompt: "You are version one." } });
    const thread = await client.threads.create();

    const first = await run(client, thread.thread_id, assistant.assistant_id, "hello");
    expect(first.chunks[0]).toEqual({ event: "metadata", data: { run_id: expect.any(String), attempt: 1 }, id: undefined });
    expect(first.created).toEqual({ run_id: first.chunks[0]!.data.run_id, thread_id: thread.thread_id });
    expect(first.reply).toBe("You are version one. | you said: hello");

    const updated = await client.assistants.update(assistant.assistant_id, { context: { system_prompt: "You are version two.", model: "m-2" } });
    expect(updated).toMatchObject({ version: 2, context: { system_prompt: "You are version two.", model: "m-2" } });
    const second = await run(client, thread.thread_id, assistant.assistant_id, "again");
    expect(second.reply).toBe("You are version two. | model: m-2 | you said: again");

    const versions = await client.assistants.getVersions(assistant.assistant_id);
    expect(versions.map((v) => v.version)).toEqual([2, 1]);
    expect(versions[1]!.context).toEqual({ system_prompt: "You are version one." });

    const rolledBack = await client.assistants.setLatest(assistant.assistant_id, 1);
    expect(rolledBack).toMatchObject({ version: 1, context: { system_prompt: "You are version one." } });
    const third = await run(client, thread.thread_id, assistant.assistant_id, "once more");
    expect(third.reply).toBe("You are version one. | you said: once more");

    const state = await client.threads.get(thread.thread_id);
    expect(state.status).toBe("idle");
    expect((state.values as any).messages).toHaveLength(6);

    const otherThread = await client.threads.create();
    const byGraph = await run(client, otherThread.thread_id, "agent", "plain");
    expect(byGraph.reply).toBe("you said: plain");

    const found = await client.assistants.search({ metadata: tag });
    expect(found.map((a) => a.assistant_id)).toEqual([assistant.assistant_id]);

    await client.assistants.delete(assistant.assistant_id);
    await expect(client.assistants.get(assistant.assistant_id)).rejects.toMatchObject({ status: 404 });
    await expect(client.assistants.getVersions(assistant.assistant_id)).rejects.toMatchObject({ status: 404 });
  });

  it("surfaces 404 before a stream and the error event of a failing run", async () => {
    const client = officialClient();
    const consume = async (threadId: string, assistantId: string, text: string) => {
      const chunks: Chunk[] = [];
      for await (const chunk of client.runs.stream(threadId, assistantId, { input: { messages: [{ role: "user", content: text }] }, streamMode: "updates" })) {
        chunks.push(chunk as Chunk);
      }
      return chunks;
    };
    await expect(consume(crypto.randomUUID(), "agent", "hi")).rejects.toMatchObject({ status: 404 });

    const thread = await client.threads.create();
    const chunks = await consume(thread.thread_id, "agent", "please [[fail]]");
    expect(chunks.map((c) => c.event)).toEqual(["metadata", "error"]);
    expect(chunks[1]!.data).toEqual({ error: "EmulatedNodeError", message: expect.stringContaining("[[fail]]") });
    expect((await client.threads.get(thread.thread_id)).status).toBe("error");

    await client.threads.delete(thread.thread_id);
    await expect(client.threads.get(thread.thread_id)).rejects.toMatchObject({ status: 404 });
  });
});
