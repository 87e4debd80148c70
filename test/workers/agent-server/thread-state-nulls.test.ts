// Where the real server (`@langchain/langgraph-api`'s `stateSnapshotToThreadState`, and the Python
// server's alike) writes null in a ThreadState, the emulator writes null too, not nothing: the
// first checkpoint's `parent_checkpoint`, and a task's `error`, `checkpoint`, `state` and `result`
// when it has none. Code written against the real server (its own suite compares copied histories
// with `parent_checkpoint: null`) reads them so.
import { describe, expect, it } from "vitest";
import { agentServer, createThread } from "./support.ts";
import { createRun, join, say } from "./run-support.ts";

describe("null fields of a ThreadState", () => {
  it("the first checkpoint's parent_checkpoint is null, in the history and at that checkpoint, and in a copy's history", async () => {
    const thread = await createThread();
    await join(thread.thread_id, (await createRun(thread.thread_id, { assistant_id: "agent", input: say("hi") })).run_id);
    const history = (await agentServer("POST", `/threads/${thread.thread_id}/history`, { body: { limit: 100 } })).body;
    const first = history.at(-1);
    expect(first).toHaveProperty("parent_checkpoint", null);
    expect(history.slice(0, -1).every((s: any) => s.parent_checkpoint !== null)).toBe(true);
    const atFirst = await agentServer("GET", `/threads/${thread.thread_id}/state/${first.checkpoint.checkpoint_id}`);
    expect(atFirst.body).toHaveProperty("parent_checkpoint", null);

    const copy = (await agentServer("POST", `/threads/${thread.thread_id}/copy`)).body;
    const copied = (await agentServer("POST", `/threads/${copy.thread_id}/history`, { body: { limit: 100 } })).body;
    expect(copied.at(-1)).toHaveProperty("parent_checkpoint", null);
  });

  it("a thread that never ran has no parent checkpoint either", async () => {
    const thread = await createThread();
    expect((await agentServer("GET", `/threads/${thread.thread_id}/state`)).body).toHaveProperty("parent_checkpoint", null);
  });

  it("a task without error, checkpoint, state or result has each as null; a failed task its error", async () => {
    const thread = await createThread();
    await join(thread.thread_id, (await createRun(thread.thread_id, { assistant_id: "pipeline", input: say("[[fail]]") })).run_id);
    const history = (await agentServer("POST", `/threads/${thread.thread_id}/history`, { body: { limit: 100 } })).body;
    const input = history.at(-1);
    expect(input.tasks).toEqual([
      {
        id: expect.any(String),
        name: "__start__",
        path: ["__pregel_pull", "__start__"],
        error: null,
        interrupts: [],
        checkpoint: null,
        state: null,
        result: null,
      },
    ]);
    expect(history[0].tasks).toEqual([
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
