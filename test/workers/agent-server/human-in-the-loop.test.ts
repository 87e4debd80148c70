// Human in the loop on the agent-server emulator, over plain HTTP: the `approval` graph pausing
// at its review step, breakpoints (interrupt_before / interrupt_after) on any graph, and runs that
// go on with `command` (resume, update, goto). Every answer is held to the reference document.
import { describe, expect, it } from "vitest";
import { agentServer, readEvents, send } from "./support.ts";
import { contents, createRun, held, join, openEvents, say, restartStateObject, untilValuesShow } from "./run-support.ts";

const newThread = async (): Promise<string> => (await agentServer("POST", "/threads", { body: {} })).body.thread_id;

/** POST .../runs/wait, expecting 200: the run's outcome. */
async function runWait(threadId: string, body: Record<string, unknown>): Promise<any> {
  const res = await agentServer("POST", `/threads/${threadId}/runs/wait`, { body });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

/** Streams a run to its end. */
async function stream(threadId: string, body: Record<string, unknown>) {
  const res = await send("POST", `/threads/${threadId}/runs/stream`, { body });
  expect(res.status).toBe(200);
  return readEvents(res);
}

const state = async (threadId: string) => (await agentServer("GET", `/threads/${threadId}/state`)).body;
const thread = async (threadId: string) => (await agentServer("GET", `/threads/${threadId}`)).body;

describe("the approval graph pauses at human_review", () => {
  it("streams to the interrupt; the run and thread are interrupted with it in the state", async () => {
    const threadId = await newThread();
    const events = await stream(threadId, { assistant_id: "approval", input: say("ship it"), stream_mode: ["values", "updates"] });
    expect(events.map((e) => e.event)).toEqual(["metadata", "values", "updates", "values", "updates", "values"]);
    const [, , draft, , paused, last] = events;
    expect(draft!.data.draft.messages[0].content).toBe("draft: ship it");
    const interrupt = paused!.data.__interrupt__[0];
    expect(paused!.data).toEqual({
      __interrupt__: [{ value: { question: "Approve this draft?", draft: "draft: ship it", options: ["approve", "reject"] }, id: interrupt.id }],
    });
    expect(interrupt.id).toMatch(/^[0-9a-f]{32}$/);
    // The values event carries the whole state with the interrupt beside it, as LangGraph 1.0.4+ streams it.
    expect(contents(last!.data)).toEqual(["ship it", "draft: ship it"]);
    expect(last!.data.__interrupt__).toEqual([interrupt]);

    const runId = events[0]!.data.run_id;
    expect((await agentServer("GET", `/threads/${threadId}/runs/${runId}`)).body.status).toBe("interrupted");
    const s = await state(threadId);
    expect(s.next).toEqual(["human_review"]);
    expect(s.tasks).toEqual([
      {
        id: expect.any(String),
        name: "human_review",
        path: ["__pregel_pull", "human_review"],
        error: null,
        interrupts: [interrupt],
        checkpoint: null,
        state: null,
        result: null,
      },
    ]);
    expect(s.interrupts).toEqual([interrupt]);
    const t = await thread(threadId);
    expect(t.status).toBe("interrupted");
    expect(t.interrupts).toEqual({ [s.tasks[0].id]: [interrupt] });
  });

  it("resumes with command.resume from the interrupted checkpoint and reaches the end", async () => {
    const threadId = await newThread();
    const paused = await runWait(threadId, { assistant_id: "approval", input: say("ship it"), context: { question: "Publish?" } });
    // wait answers the values with the interrupt, as the real server's wait does.
    expect(paused.__interrupt__[0].value.question).toBe("Publish?");
    const interruptedAt = (await state(threadId)).checkpoint.checkpoint_id;

    const events = await stream(threadId, { assistant_id: "approval", command: { resume: "approve" }, stream_mode: "updates" });
    expect(events.map((e) => e.event)).toEqual(["metadata", "updates", "updates"]);
    expect(events[1]!.data.human_review.messages[0].content).toBe("review: approved");
    const s = await state(threadId);
    expect(contents(s.values)).toEqual(["ship it", "draft: ship it", "review: approved", "published: draft: ship it"]);
    expect(s.next).toEqual([]);
    expect(s.interrupts).toEqual([]);
    const t = await thread(threadId);
    expect([t.status, t.interrupts]).toEqual(["idle", {}]);

    // The resumed run's first checkpoint follows the interrupted one: one parent chain.
    const history = (await agentServer("GET", `/threads/${threadId}/history?limit=20`)).body as any[];
    const resumedFirst = history.findLast((h) => h.metadata.run_id === events[0]!.data.run_id);
    expect(resumedFirst.parent_checkpoint.checkpoint_id).toBe(interruptedAt);
    for (let i = 0; i < history.length - 1; i++) expect(history[i].parent_checkpoint.checkpoint_id).toBe(history[i + 1].checkpoint.checkpoint_id);
    // The interrupted checkpoint keeps its interrupt in the history.
    expect(history.find((h) => h.checkpoint.checkpoint_id === interruptedAt).tasks[0].interrupts).toHaveLength(1);
  });

  it("takes a rejection with a comment; an unreadable resume value fails the run saying what it takes", async () => {
    const threadId = await newThread();
    await runWait(threadId, { assistant_id: "approval", input: say("ship it") });
    const done = await runWait(threadId, { assistant_id: "approval", command: { resume: { approved: false, comment: "too short" } } });
    expect(contents(done).slice(-2)).toEqual(["review: rejected: too short", "not published: draft: ship it"]);

    const other = await newThread();
    await runWait(other, { assistant_id: "approval", input: say("x") });
    const failed = await runWait(other, { assistant_id: "approval", command: { resume: "maybe" } });
    expect(failed.__error__).toEqual({ error: "InvalidResumeError", message: expect.stringContaining('send true or false, "approve" or "reject"') });
    expect((await thread(other)).status).toBe("error");
  });

  it("refuses a resume on a thread that is not interrupted (400)", async () => {
    const threadId = await newThread();
    const fresh = await agentServer("POST", `/threads/${threadId}/runs`, { body: { assistant_id: "approval", command: { resume: "approve" } } });
    expect(fresh.status).toBe(400);
    expect(fresh.body.detail).toMatch(/^Cannot resume: thread .* is not interrupted \(its status is idle\)/);
    await runWait(threadId, { assistant_id: "agent", input: say("hi") });
    expect((await agentServer("POST", `/threads/${threadId}/runs/wait`, { body: { assistant_id: "agent", command: { resume: 1 } } })).status).toBe(400);
    const stateless = await agentServer("POST", "/runs/wait", { body: { assistant_id: "approval", command: { resume: "approve" } } });
    expect(stateless.status).toBe(400);
  });

  it("command.update writes before going on, goto picks the node: both 422 when the graph cannot follow them", async () => {
    const threadId = await newThread();
    await runWait(threadId, { assistant_id: "approval", input: say("ship it") });
    const done = await runWait(threadId, {
      assistant_id: "approval",
      command: { update: { messages: [{ role: "user", content: "fix the typo" }] }, goto: "draft" },
    });
    // draft ran again on the updated state, then paused again at the review.
    expect(contents(done)).toEqual(["ship it", "draft: ship it", "fix the typo", "draft: fix the typo"]);
    expect(done.__interrupt__[0].value.draft).toBe("draft: fix the typo");
    expect((await thread(threadId)).status).toBe("interrupted");

    const refused = async (command: unknown) =>
      (await agentServer("POST", `/threads/${threadId}/runs`, { body: { assistant_id: "approval", command } })).body.detail[0].loc;
    expect(await refused({})).toEqual(["body", "command"]);
    expect(await refused({ goto: "nowhere" })).toEqual(["body", "command", "goto"]);
    expect(await refused({ goto: { node: "draft", input: {} } })).toEqual(["body", "command", "goto"]);
    expect(await refused({ goto: ["draft", "finalize"] })).toEqual(["body", "command", "goto"]);
    expect(await refused({ update: { notes: "x" } })).toEqual(["body", "command", "update", "notes"]);
    expect(await refused({ update: { messages: [{ role: "robot", content: "x" }] } })).toEqual(["body", "command", "update", "messages"]);
  });
});

describe("breakpoints on every graph", () => {
  it("interrupt_before stops the agent graph before its node; a run without input goes on", async () => {
    const threadId = await newThread();
    const events = await stream(threadId, { assistant_id: "agent", input: say("hello"), interrupt_before: ["agent"], stream_mode: ["updates"] });
    expect(events.map((e) => [e.event, e.data])).toEqual([
      ["metadata", expect.anything()],
      ["updates", { __interrupt__: [] }],
    ]);
    expect((await agentServer("GET", `/threads/${threadId}/runs/${events[0]!.data.run_id}`)).body.status).toBe("interrupted");
    const s = await state(threadId);
    expect([s.next, s.tasks[0].interrupts, s.interrupts]).toEqual([["agent"], [], []]);
    expect(contents(s.values)).toEqual(["hello"]);
    const t = await thread(threadId);
    expect([t.status, t.interrupts]).toEqual(["interrupted", {}]);

    // Resumed (no input, the same breakpoint asked again): it does not stop at the node it starts with.
    const done = await runWait(threadId, { assistant_id: "agent", input: null, interrupt_before: ["agent"] });
    expect(contents(done)).toEqual(["hello", "you said: hello"]);
    expect((await thread(threadId)).status).toBe("idle");
  });

  it('interrupt_after "*" stops after each node; command.resume on a breakpoint goes on too', async () => {
    const threadId = await newThread();
    const run = await createRun(threadId, { assistant_id: "pipeline", input: say("t"), interrupt_after: "*" });
    await join(threadId, run.run_id);
    expect((await state(threadId)).next).toEqual(["review"]);
    expect((await thread(threadId)).status).toBe("interrupted");
    const done = await runWait(threadId, { assistant_id: "pipeline", command: { resume: "go on" } });
    expect(contents(done)).toEqual(["t", "draft: t", "reviewed: t"]);
    expect((await thread(threadId)).status).toBe("idle");
  });

  it("refuses breakpoints naming nodes the graph lacks (422), and new input starts over from an interrupted thread", async () => {
    const threadId = await newThread();
    const res = await agentServer("POST", `/threads/${threadId}/runs`, { body: { assistant_id: "agent", interrupt_before: ["agent", "tools"] } });
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([expect.objectContaining({ type: "value_error", loc: ["body", "interrupt_before", 1], input: "tools" })]);
    expect((await agentServer("POST", `/threads/${threadId}/runs`, { body: { assistant_id: "agent", interrupt_after: "all" } })).status).toBe(422);

    await runWait(threadId, { assistant_id: "approval", input: say("first") });
    const again = await runWait(threadId, { assistant_id: "approval", input: say("second") });
    expect(contents(again).slice(-2)).toEqual(["second", "draft: second"]);
    expect(again.__interrupt__[0].value.draft).toBe("draft: second");
  });
});

describe("a resumed run across a restart of the state object", () => {
  it("goes on from its own last checkpoint: the resume value is not handed over twice", async () => {
    const threadId = await newThread();
    await runWait(threadId, { assistant_id: "approval", input: held("x") });
    // Resumed, it reviews, then holds before finalize (the hold marker) until cancelled.
    const run = await createRun(threadId, { assistant_id: "approval", command: { resume: "approve" } });
    await untilValuesShow(threadId, run.run_id, "review: approved");

    await restartStateObject();

    const { events } = await openEvents("GET", `/threads/${threadId}/runs/${run.run_id}/stream`);
    await events.until((e) => e.event === "metadata" && e.data.attempt === 2);
    await agentServer("POST", `/threads/${threadId}/runs/${run.run_id}/cancel`);
    await events.rest();
    const history = (await agentServer("POST", `/threads/${threadId}/history`, { body: { limit: 100 } })).body as any[];
    expect(history.map((h) => Object.keys(h.metadata.writes ?? {})[0]).reverse()).toEqual(["__start__", undefined, "draft", "human_review"]);
    expect((await agentServer("GET", `/threads/${threadId}`)).body.status).toBe("idle");
  });
});
