// A thread's state as its runs left it: a checkpoint after each run's input and after each node
// step, read as the latest state, one checkpoint, or the history; updated (a new checkpoint, as if
// a node had written it); and copied with the thread.
import { describe, expect, it } from "vitest";
import { agentServer, createThread } from "./support.ts";
import { contents, createRun, join, say } from "./run-support.ts";

/** A thread on which the pipeline ran once ("hi"): checkpoints -1 (input), 0 (start), 1 (draft), 2 (review). */
async function threadWithRun() {
  const thread = await createThread();
  const run = await createRun(thread.thread_id, { assistant_id: "pipeline", input: say("hi"), metadata: { origin: "test" } });
  await join(thread.thread_id, run.run_id);
  return { thread, run };
}

const history = async (threadId: string, body: Record<string, unknown> = { limit: 100 }) =>
  (await agentServer("POST", `/threads/${threadId}/history`, { body })).body;

describe("GET /threads/{thread_id}/state", () => {
  it("answers the latest checkpoint: values, no next node, its ids and metadata", async () => {
    const { thread, run } = await threadWithRun();
    const res = await agentServer("GET", `/threads/${thread.thread_id}/state`);
    expect(res.status).toBe(200);
    expect(contents(res.body.values)).toEqual(["hi", "draft: hi", "reviewed: hi"]);
    expect(res.body).toMatchObject({
      next: [],
      tasks: [],
      checkpoint: { thread_id: thread.thread_id, checkpoint_ns: "", checkpoint_id: expect.any(String) },
      parent_checkpoint: { thread_id: thread.thread_id, checkpoint_ns: "" },
      metadata: { source: "loop", step: 2, writes: { review: expect.any(Object) }, run_id: run.run_id, graph_id: "pipeline", origin: "test" },
      interrupts: [],
    });
  });

  it("answers an empty state for a thread that never ran, 404 for an unknown thread", async () => {
    const thread = await createThread();
    expect((await agentServer("GET", `/threads/${thread.thread_id}/state`)).body).toMatchObject({
      values: {},
      next: [],
      tasks: [],
      checkpoint: { thread_id: thread.thread_id },
    });
    expect((await agentServer("GET", `/threads/${crypto.randomUUID()}/state`)).status).toBe(404);
    expect((await agentServer("GET", "/threads/nope/state")).status).toBe(422);
  });

  it("shows where a failed run stopped: the node next, with its error", async () => {
    const thread = await createThread();
    await join(thread.thread_id, (await createRun(thread.thread_id, { assistant_id: "pipeline", input: say("[[fail]]") })).run_id);
    const state = (await agentServer("GET", `/threads/${thread.thread_id}/state`)).body;
    expect(state.next).toEqual(["review"]);
    expect(state.tasks).toEqual([
      {
        id: expect.any(String),
        name: "review",
        path: ["__pregel_pull", "review"],
        error: expect.stringContaining("EmulatedNodeError"),
        interrupts: [],
        checkpoint: null,
        state: null,
        result: null,
      },
    ]);
  });
});

describe("history", () => {
  it("lists every checkpoint newest first, steps continuing across runs, each the parent of the next", async () => {
    const { thread } = await threadWithRun();
    await join(thread.thread_id, (await createRun(thread.thread_id, { assistant_id: "agent", input: say("again") })).run_id);
    const states = await history(thread.thread_id);
    expect(states.map((s: any) => [s.metadata.step, s.metadata.source, s.next])).toEqual([
      [5, "loop", []],
      [4, "loop", ["agent"]],
      [3, "input", ["__start__"]],
      [2, "loop", []],
      [1, "loop", ["review"]],
      [0, "loop", ["draft"]],
      [-1, "input", ["__start__"]],
    ]);
    for (let i = 0; i < states.length - 1; i++) expect(states[i].parent_checkpoint.checkpoint_id).toBe(states[i + 1].checkpoint.checkpoint_id);
    expect(states.at(-1).parent_checkpoint).toBeNull();
  });

  it("pages with limit and before, filters by metadata; GET takes limit and before as query", async () => {
    const { thread, run } = await threadWithRun();
    const all = await history(thread.thread_id);
    expect(await history(thread.thread_id, {})).toEqual(all.slice(0, 1)); // limit defaults to 1
    expect(await history(thread.thread_id, { limit: 2, before: all[1].checkpoint })).toEqual(all.slice(2, 4));
    expect(await history(thread.thread_id, { limit: 10, before: { configurable: { checkpoint_id: all[1].checkpoint.checkpoint_id } } })).toEqual(all.slice(2));
    expect(await history(thread.thread_id, { limit: 10, metadata: { source: "input", run_id: run.run_id } })).toEqual([all.at(-1)]);
    const get = await agentServer("GET", `/threads/${thread.thread_id}/history?limit=2&before=${all[0].checkpoint.checkpoint_id}`);
    expect(get.body).toEqual(all.slice(1, 3));
    expect((await agentServer("GET", `/threads/${thread.thread_id}/history`)).body).toEqual(all); // GET's limit defaults to 10
  });

  it("answers 404 for an unknown thread and 422 for a limit out of bounds", async () => {
    expect((await agentServer("POST", `/threads/${crypto.randomUUID()}/history`, { body: {} })).status).toBe(404);
    const thread = await createThread();
    const bad = await agentServer("POST", `/threads/${thread.thread_id}/history`, { body: { limit: 1001 } });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0]).toMatchObject({ type: "less_than_equal", loc: ["body", "limit"] });
    expect((await agentServer("GET", `/threads/${thread.thread_id}/history?limit=0`)).status).toBe(422);
  });
});

describe("a checkpoint by id", () => {
  it("GET /state/{checkpoint_id} and POST /state/checkpoint answer that checkpoint's state", async () => {
    const { thread } = await threadWithRun();
    const draft = (await history(thread.thread_id)).find((s: any) => s.metadata.writes?.draft);
    const byId = await agentServer("GET", `/threads/${thread.thread_id}/state/${draft.checkpoint.checkpoint_id}`);
    expect(byId.body).toEqual(draft);
    const byPost = await agentServer("POST", `/threads/${thread.thread_id}/state/checkpoint`, {
      body: { checkpoint: { checkpoint_id: draft.checkpoint.checkpoint_id } },
    });
    expect(byPost.body).toEqual(draft);
    expect(contents(draft.values)).toEqual(["hi", "draft: hi"]);
    expect(draft.next).toEqual(["review"]);
  });

  it("answers 404 for a checkpoint the thread does not have, 422 for a malformed id or a missing checkpoint", async () => {
    const { thread } = await threadWithRun();
    expect((await agentServer("GET", `/threads/${thread.thread_id}/state/${crypto.randomUUID()}`)).status).toBe(404);
    expect((await agentServer("GET", `/threads/${thread.thread_id}/state/not-a-uuid`)).body.detail[0]).toMatchObject({
      type: "uuid_parsing",
      loc: ["path", "checkpoint_id"],
    });
    expect((await agentServer("POST", `/threads/${thread.thread_id}/state/checkpoint`, { body: {} })).body.detail[0]).toMatchObject({
      type: "missing",
      loc: ["body", "checkpoint"],
    });
  });
});

describe("POST /threads/{thread_id}/state", () => {
  it("adds a checkpoint with the values applied as the node would write them; the thread takes them", async () => {
    const { thread } = await threadWithRun();
    const res = await agentServer("POST", `/threads/${thread.thread_id}/state`, { body: { values: { messages: [{ type: "ai", content: "edited reply" }] } } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ checkpoint: { thread_id: thread.thread_id, checkpoint_ns: "", checkpoint_id: expect.any(String) } });
    const state = (await agentServer("GET", `/threads/${thread.thread_id}/state`)).body;
    expect(state.checkpoint).toEqual(res.body.checkpoint);
    expect(state.metadata).toMatchObject({ source: "update", step: 3, writes: { review: { messages: [{ type: "ai", content: "edited reply" }] } } });
    expect(contents(state.values)).toEqual(["hi", "draft: hi", "reviewed: hi", "edited reply"]);
    expect(contents((await agentServer("GET", `/threads/${thread.thread_id}`)).body.values)).toEqual(contents(state.values));
  });

  it("as_node sets what runs next, and a run without input goes on from there", async () => {
    const { thread } = await threadWithRun();
    await agentServer("POST", `/threads/${thread.thread_id}/state`, { body: { values: { messages: [{ role: "user", content: "redo" }] }, as_node: "draft" } });
    expect((await agentServer("GET", `/threads/${thread.thread_id}/state`)).body.next).toEqual(["review"]);
    const resumed = await createRun(thread.thread_id, { assistant_id: "pipeline", input: null });
    expect(contents((await join(thread.thread_id, resumed.run_id)).body)).toEqual(["hi", "draft: hi", "reviewed: hi", "redo", "reviewed: redo"]);
  });

  it("forks from an older checkpoint (checkpoint_id), which the history then shows as the parent", async () => {
    const { thread } = await threadWithRun();
    const draft = (await history(thread.thread_id)).find((s: any) => s.metadata.writes?.draft);
    const res = await agentServer("POST", `/threads/${thread.thread_id}/state`, {
      body: { values: { messages: [{ role: "user", content: "fork" }] }, checkpoint_id: draft.checkpoint.checkpoint_id, as_node: "review" },
    });
    const state = (await agentServer("GET", `/threads/${thread.thread_id}/state`)).body;
    expect(state.checkpoint.checkpoint_id).toBe(res.body.checkpoint.checkpoint_id);
    expect(state.parent_checkpoint.checkpoint_id).toBe(draft.checkpoint.checkpoint_id);
    expect(contents(state.values)).toEqual(["hi", "draft: hi", "fork"]);
  });

  it("refuses: 404 unknown thread, 400 a thread that never ran, 409 a run in flight, 422 a key or node the graph lacks", async () => {
    expect((await agentServer("POST", `/threads/${crypto.randomUUID()}/state`, { body: { values: {} } })).status).toBe(404);
    const fresh = await createThread();
    const noGraph = await agentServer("POST", `/threads/${fresh.thread_id}/state`, { body: { values: { messages: [] } } });
    expect(noGraph.status).toBe(400);
    expect(noGraph.body.detail).toContain("has no graph yet");

    const { thread } = await threadWithRun();
    const key = await agentServer("POST", `/threads/${thread.thread_id}/state`, { body: { values: { mood: "happy" } } });
    expect(key.status).toBe(422);
    expect(key.body.detail[0]).toMatchObject({ type: "value_error", loc: ["body", "values", "mood"] });
    const node = await agentServer("POST", `/threads/${thread.thread_id}/state`, { body: { values: {}, as_node: "critic" } });
    expect(node.body.detail[0]).toMatchObject({ type: "value_error", loc: ["body", "as_node"], input: "critic" });

    const held = await createRun(thread.thread_id, { assistant_id: "pipeline", input: say("busy [[hold]]") });
    const busy = await agentServer("POST", `/threads/${thread.thread_id}/state`, { body: { values: {} } });
    expect(busy.status).toBe(409);
    await agentServer("POST", `/threads/${thread.thread_id}/runs/${held.run_id}/cancel`);
  });
});

describe("POST /threads/{thread_id}/copy", () => {
  it("makes a new idle thread with the same metadata, values and checkpoints, not the runs", async () => {
    const { thread } = await threadWithRun();
    const res = await agentServer("POST", `/threads/${thread.thread_id}/copy`);
    expect(res.status).toBe(200);
    const copy = res.body;
    expect(copy.thread_id).not.toBe(thread.thread_id);
    expect(copy).toMatchObject({ status: "idle", metadata: { graph_id: "pipeline" } });
    expect(contents(copy.values)).toEqual(["hi", "draft: hi", "reviewed: hi"]);
    const original = await history(thread.thread_id);
    const copied = await history(copy.thread_id);
    expect(copied.map((s: any) => s.checkpoint.checkpoint_id)).toEqual(original.map((s: any) => s.checkpoint.checkpoint_id));
    expect(copied[0].checkpoint.thread_id).toBe(copy.thread_id);
    expect((await agentServer("GET", `/threads/${copy.thread_id}/runs`)).body).toEqual([]);

    // The copy goes its own way.
    await join(copy.thread_id, (await createRun(copy.thread_id, { assistant_id: "agent", input: say("only in the copy") })).run_id);
    expect(await history(thread.thread_id)).toEqual(original);
  });

  it("answers 409 for a thread that does not exist, 422 for a malformed id", async () => {
    expect((await agentServer("POST", `/threads/${crypto.randomUUID()}/copy`)).status).toBe(409);
    expect((await agentServer("POST", "/threads/nope/copy")).status).toBe(422);
  });
});
