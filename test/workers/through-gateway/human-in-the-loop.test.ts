// Human in the loop with the official JS client (@langchain/langgraph-sdk) through the gateway:
// stream a run on the `approval` graph to its interrupt, read the paused state, resume it with a
// command, reach the end; a breakpoint (interrupt_before) on the `agent` graph; a refused resume.
// Every response is held to the reference document (support.ts).
import { describe, expect, it } from "vitest";
import { officialClient } from "../agent-server/support.ts";
import { contents, say } from "../agent-server/run-support.ts";

type Chunk = { event: string; data: any };

async function collect(stream: AsyncIterable<Chunk>): Promise<Chunk[]> {
  const chunks: Chunk[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return chunks;
}

describe("human in the loop with the official client", () => {
  it("streams to the interrupt, reads the state, resumes with a command and reaches the end", async () => {
    const client = officialClient();
    const thread = await client.threads.create();
    const first = await collect(client.runs.stream(thread.thread_id, "approval", { input: say("launch"), streamMode: ["values", "updates"] }));
    const paused = first.find((c) => c.event === "updates" && "__interrupt__" in c.data);
    const interrupt = paused!.data.__interrupt__[0];
    expect(interrupt.value).toEqual({ question: "Approve this draft?", draft: "draft: launch", options: ["approve", "reject"] });
    // The last values chunk is what useStream reads its `interrupt` from.
    expect(first.at(-1)).toEqual({ event: "values", data: { messages: expect.any(Array), __interrupt__: [interrupt] } });

    const state = await client.threads.getState(thread.thread_id);
    expect(state.next).toEqual(["human_review"]);
    expect(state.tasks.flatMap((t) => t.interrupts)).toEqual([interrupt]);
    const stored = await client.threads.get(thread.thread_id);
    expect(stored.status).toBe("interrupted");
    expect(Object.values(stored.interrupts)).toEqual([[interrupt]]);
    const [run] = await client.runs.list(thread.thread_id);
    expect(run!.status).toBe("interrupted");

    const resumed = await collect(client.runs.stream(thread.thread_id, "approval", { command: { resume: { approved: true } }, streamMode: "values" }));
    expect(contents(resumed.at(-1)!.data)).toEqual(["launch", "draft: launch", "review: approved", "published: draft: launch"]);
    const done = await client.threads.getState(thread.thread_id);
    expect([done.next, done.tasks]).toEqual([[], []]);
    expect((await client.threads.get(thread.thread_id)).status).toBe("idle");

    // The history is one parent chain through the interrupted checkpoint.
    const history = await client.threads.getHistory(thread.thread_id, { limit: 20 });
    for (let i = 0; i < history.length - 1; i++) expect(history[i]!.parent_checkpoint?.checkpoint_id).toBe(history[i + 1]!.checkpoint.checkpoint_id);
    expect(history.find((h) => h.checkpoint.checkpoint_id === state.checkpoint.checkpoint_id)!.tasks[0]!.interrupts).toEqual([interrupt]);
  });

  it("stops the agent graph before its node with interrupt_before, and goes on with a run without input", async () => {
    const client = officialClient();
    const thread = await client.threads.create();
    const chunks = await collect(client.runs.stream(thread.thread_id, "agent", { input: say("hello"), interruptBefore: ["agent"], streamMode: "updates" }));
    expect(chunks.map((c) => c.event)).toEqual(["metadata", "updates"]);
    expect(chunks[1]!.data).toEqual({ __interrupt__: [] });
    const state = await client.threads.getState(thread.thread_id);
    expect(state.next).toEqual(["agent"]);
    expect((await client.threads.get(thread.thread_id)).status).toBe("interrupted");

    const result = await client.runs.wait(thread.thread_id, "agent", { input: null });
    expect(contents(result)).toEqual(["hello", "you said: hello"]);
  });

  it("refuses a resume on a thread that is not interrupted", async () => {
    const client = officialClient();
    const thread = await client.threads.create();
    await client.runs.wait(thread.thread_id, "agent", { input: say("hi") });
    const refused = await client.runs.wait(thread.thread_id, "agent", { command: { resume: "approve" } }).then(
      () => undefined,
      (error: { status?: number; message?: string }) => error,
    );
    expect(refused?.status).toBe(400);
    expect(refused?.message).toContain("is not interrupted");
  });
});
