// `after_seconds`: a run that starts later, and stays `pending` until then.
import { describe, expect, it } from "vitest";
import { say } from "../../support/run-input.ts";
import { advanceClock, MINUTE_MS } from "./clock.ts";
import { agentServer, createThread, lastReply } from "./support.ts";

/** Polls until the run is over (the engine drives it in the state object). */
async function settledRun(threadId: string, runId: string): Promise<any> {
  for (let i = 0; i < 200; i++) {
    const run = (await agentServer("GET", `/threads/${threadId}/runs/${runId}`)).body;
    if (run.status !== "pending" && run.status !== "running") return run;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`run ${runId} never ended`);
}

describe("a run created with after_seconds", () => {
  it("stays pending, holding its thread, until that many seconds have passed on the clock", async () => {
    const thread = await createThread();
    const created = await agentServer("POST", `/threads/${thread.thread_id}/runs`, {
      body: { assistant_id: "agent", input: say("later"), after_seconds: 600 },
    });
    expect(created.status).toBe(200);
    const runPath = `/threads/${thread.thread_id}/runs/${created.body.run_id}`;
    // Long enough for a run that started at once to have ended.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect((await agentServer("GET", runPath)).body.status).toBe("pending");
    expect((await agentServer("GET", `/threads/${thread.thread_id}`)).body.status).toBe("busy");
    const update = await agentServer("POST", `/threads/${thread.thread_id}/state`, { body: { values: { messages: [] }, as_node: "agent" } });
    expect(update.status).toBe(409);

    await advanceClock(11 * MINUTE_MS);
    const run = await settledRun(thread.thread_id, created.body.run_id);
    expect(run.status).toBe("success");
    const state = (await agentServer("GET", `/threads/${thread.thread_id}/state`)).body;
    expect(lastReply(state.values.messages)).toBe("you said: later");
  });

  it("can be cancelled while it waits: interrupted, and the thread is idle again", async () => {
    const thread = await createThread();
    const created = await agentServer("POST", `/threads/${thread.thread_id}/runs`, {
      body: { assistant_id: "agent", input: say("never"), after_seconds: 600 },
    });
    const pending = await agentServer("GET", `/threads/${thread.thread_id}/runs?status=pending`);
    expect(pending.body.map((r: any) => r.run_id)).toEqual([created.body.run_id]);
    expect((await agentServer("POST", `/threads/${thread.thread_id}/runs/${created.body.run_id}/cancel`)).status).toBe(200);
    const run = await settledRun(thread.thread_id, created.body.run_id);
    expect(run.status).toBe("interrupted");
    expect((await agentServer("GET", `/threads/${thread.thread_id}`)).body.status).toBe("idle");
    // A run after it starts at once: the cancelled one does not hold the thread's queue.
    const next = await agentServer("POST", `/threads/${thread.thread_id}/runs/wait`, { body: { assistant_id: "agent", input: say("now") } });
    expect(lastReply(next.body.messages)).toBe("you said: now");
  });

  it("answers 422 for a negative or non-numeric after_seconds", async () => {
    const thread = await createThread();
    for (const after_seconds of [-1, "soon"]) {
      const res = await agentServer("POST", `/threads/${thread.thread_id}/runs`, { body: { assistant_id: "agent", after_seconds } });
      expect(res.status).toBe(422);
      expect(res.body.detail[0].loc).toEqual(["body", "after_seconds"]);
    }
  });
});
