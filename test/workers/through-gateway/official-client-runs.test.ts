// The official JS client (@langchain/langgraph-sdk) drives runs and thread state through the
// gateway: background runs, wait, join, joinStream (with a reconnect after a dropped stream),
// cancel, list, stateless runs, and getState/updateState/getHistory/copy. Every response is held
// to the reference document (support.ts).
import { describe, expect, it } from "vitest";
import { officialClient } from "../agent-server/support.ts";
import { contents, held, say } from "../agent-server/run-support.ts";

/** What a client sent, as the test sees it. */
type Sent = { readonly url: string; readonly lastEventId: string | null };

/**
 * A body that delivers the first `events` events and then, once `drop` settles, fails as a dropped
 * connection does: the client has what it read, and the rest of the stream is lost. The test drops
 * it after the client has handed it those events (failing sooner would discard them unread).
 */
function droppedAfter(body: ReadableStream<Uint8Array>, events: number, drop: Promise<void>): ReadableStream<Uint8Array> {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  const encoder = new TextEncoder();
  let text = "";
  let delivered = false;
  return new ReadableStream({
    async pull(controller) {
      if (delivered) {
        await drop;
        return controller.error(new TypeError("network connection lost"));
      }
      const { done, value } = await reader.read();
      if (done) return controller.close();
      text += value;
      const blocks = text.split("\n\n");
      if (blocks.length > events) {
        controller.enqueue(
          encoder.encode(
            blocks
              .slice(0, events)
              .map((b) => `${b}\n\n`)
              .join(""),
          ),
        );
        delivered = true;
        await reader.cancel();
      }
    },
  });
}

describe("official JS client: runs", () => {
  it("creates a background run, joins it, gets and lists it, deletes it", async () => {
    const client = officialClient();
    const thread = await client.threads.create();
    let created: { run_id: string; thread_id?: string } | undefined;
    const run = await client.runs.create(thread.thread_id, "agent", { input: say("background"), onRunCreated: (meta) => void (created = meta) });
    expect(run).toMatchObject({ thread_id: thread.thread_id, status: "pending" });
    expect(created).toEqual({ run_id: run.run_id, thread_id: thread.thread_id });

    const joined = await client.runs.join(thread.thread_id, run.run_id);
    expect(contents(joined)).toEqual(["background", "you said: background"]);
    expect((await client.runs.get(thread.thread_id, run.run_id)).status).toBe("success");

    const second = await client.runs.create(thread.thread_id, "agent", { input: say("second") });
    await client.runs.join(thread.thread_id, second.run_id);
    expect((await client.runs.list(thread.thread_id)).map((r) => r.run_id)).toEqual([second.run_id, run.run_id]);
    expect((await client.runs.list(thread.thread_id, { limit: 1, offset: 1 })).map((r) => r.run_id)).toEqual([run.run_id]);

    await client.runs.delete(thread.thread_id, run.run_id);
    await expect(client.runs.get(thread.thread_id, run.run_id)).rejects.toMatchObject({ status: 404 });
  });

  it("waits for a run's output on a thread and stateless; raises a failed run's error unless told not to", async () => {
    const client = officialClient();
    const thread = await client.threads.create();
    expect(contents(await client.runs.wait(thread.thread_id, "pipeline", { input: say("wait") }))).toEqual(["wait", "draft: wait", "reviewed: wait"]);
    expect(contents(await client.runs.wait(null, "agent", { input: say("stateless") }))).toEqual(["stateless", "you said: stateless"]);
    await expect(client.runs.wait(thread.thread_id, "agent", { input: say("[[fail]]") })).rejects.toThrow(/^EmulatedNodeError: Node "agent" failed on purpose/);
    const quiet = await client.runs.wait(thread.thread_id, "agent", { input: say("[[fail]] again"), raiseError: false });
    expect(quiet).toMatchObject({ __error__: { error: "EmulatedNodeError" } });
  });

  it("streams a stateless run", async () => {
    const client = officialClient();
    const chunks = [];
    for await (const chunk of client.runs.stream(null, "pipeline", { input: say("no thread"), streamMode: "updates" })) chunks.push(chunk);
    expect(chunks.map((c) => c.event)).toEqual(["metadata", "updates", "updates"]);
    expect((chunks[2]!.data as any).review.messages[0].content).toBe("reviewed: no thread");
  });

  it("creates a batch of stateless runs", async () => {
    const client = officialClient();
    const runs = await client.runs.createBatch([
      { assistantId: "agent", input: say("a") },
      { assistantId: "pipeline", input: say("b") },
    ]);
    expect(runs.map((r) => r.status)).toEqual(["pending", "pending"]);
  });

  it("joinStream replays a run, and after a dropped stream reconnects with the last event id: every event once", async () => {
    const thread = await officialClient().threads.create();
    const run = await officialClient().runs.create(thread.thread_id, "pipeline", { input: say("reconnect"), streamMode: ["updates", "values"] });
    await officialClient().runs.join(thread.thread_id, run.run_id);

    const whole = [];
    for await (const chunk of officialClient().runs.joinStream(thread.thread_id, run.run_id)) whole.push(chunk);
    expect(whole.map((c) => c.event)).toEqual(["metadata", "values", "updates", "values", "updates", "values"]);

    const joins: Sent[] = [];
    let drop!: () => void;
    const dropped = new Promise<void>((resolve) => (drop = resolve));
    const dropping = officialClient((request, response) => {
      const sent = { url: request.url, lastEventId: request.headers.get("last-event-id") };
      if (!new URL(sent.url).pathname.endsWith("/stream")) return response;
      joins.push(sent);
      return joins.length === 1 ? new Response(droppedAfter(response.body!, 2, dropped), response) : response;
    });
    const chunks = [];
    for await (const chunk of dropping.runs.joinStream(thread.thread_id, run.run_id)) {
      chunks.push(chunk);
      if (chunks.length === 2) drop();
    }
    expect(chunks).toEqual(whole);
    expect(joins).toHaveLength(2);
    expect(joins.map((j) => j.lastEventId)).toEqual([null, whole[1]!.id]);
  });

  it("cancels: interrupt keeps the run as interrupted, rollback (waiting) deletes it", async () => {
    const client = officialClient();
    const thread = await client.threads.create();
    const first = await client.runs.create(thread.thread_id, "agent", { input: held("stop") });
    await client.runs.cancel(thread.thread_id, first.run_id);
    await client.runs.join(thread.thread_id, first.run_id);
    expect((await client.runs.get(thread.thread_id, first.run_id)).status).toBe("interrupted");

    const second = await client.runs.create(thread.thread_id, "agent", { input: held("undo") });
    await client.runs.cancel(thread.thread_id, second.run_id, true, "rollback");
    await expect(client.runs.get(thread.thread_id, second.run_id)).rejects.toMatchObject({ status: 404 });
    expect((await client.threads.get(thread.thread_id)).status).toBe("idle");
  });
});

describe("official JS client: thread state", () => {
  it("gets the state, updates it, reads the history and a checkpoint, and copies the thread", async () => {
    const client = officialClient();
    const thread = await client.threads.create();
    await client.runs.wait(thread.thread_id, "pipeline", { input: say("state") });

    const state = await client.threads.getState(thread.thread_id);
    expect(contents(state.values)).toEqual(["state", "draft: state", "reviewed: state"]);
    expect(state.next).toEqual([]);

    const update = await client.threads.updateState(thread.thread_id, { values: { messages: [{ role: "user", content: "more" }] }, asNode: "draft" });
    const updated = await client.threads.getState(thread.thread_id);
    expect(updated.checkpoint.checkpoint_id).toBe((update as any).checkpoint.checkpoint_id);
    expect(updated.next).toEqual(["review"]);

    const history = await client.threads.getHistory(thread.thread_id);
    expect(history.map((s) => s.metadata?.source)).toEqual(["update", "loop", "loop", "loop", "input"]);
    const draft = history[2]!;
    expect(await client.threads.getState(thread.thread_id, draft.checkpoint.checkpoint_id!)).toEqual(draft);
    expect(await client.threads.getState(thread.thread_id, draft.checkpoint)).toEqual(draft);
    expect(
      await client.threads.getHistory(thread.thread_id, { limit: 2, before: { configurable: { checkpoint_id: history[1]!.checkpoint.checkpoint_id! } } }),
    ).toEqual(history.slice(2, 4));

    const copy = await client.threads.copy(thread.thread_id);
    expect(copy.thread_id).not.toBe(thread.thread_id);
    expect((await client.threads.getHistory(copy.thread_id)).map((s) => s.checkpoint.checkpoint_id)).toEqual(history.map((s) => s.checkpoint.checkpoint_id));
  });
});
