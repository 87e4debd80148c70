// The run engine: runs execute in the state object, in the background, one at a time per thread,
// with the statuses, multitask strategies and cancel actions of the real server. Runs that must
// still be running when the test acts on them hold (the hold marker) until they are cancelled.
import { runInDurableObject } from "cloudflare:test";
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { stateOf } from "../../../emulators/agent-server/state-access.ts";
import { AGENT_SERVER_URL, agentServer, createThread, freshCaller } from "./support.ts";
import { contents, createRun, getRun, held, join, openEvents, say, untilOver, untilRunning, restartStateObject, untilValuesShow } from "./run-support.ts";
import { agentServerEnv } from "../support/emulator-env.ts";

describe("background runs", () => {
  it("answer pending at once, then run to success with no request waiting on them", async () => {
    const thread = await createThread();
    const res = await agentServer("POST", `/threads/${thread.thread_id}/runs`, { body: { assistant_id: "agent", input: say("in the background") } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ thread_id: thread.thread_id, status: "pending", multitask_strategy: "enqueue" });
    expect(res.headers.get("content-location")).toBe(`/threads/${thread.thread_id}/runs/${res.body.run_id}`);

    // Nobody joins or streams it: the object runs it anyway.
    expect((await untilOver(thread.thread_id, res.body.run_id)).body.status).toBe("success");
    const after = (await agentServer("GET", `/threads/${thread.thread_id}`)).body;
    expect(after.status).toBe("idle");
    expect(contents(after.values)).toEqual(["in the background", "you said: in the background"]);
  });

  it("show running while they run, and error when a node fails", async () => {
    const thread = await createThread();
    const holding = await createRun(thread.thread_id, { assistant_id: "agent", input: held("wait") });
    await untilRunning(thread.thread_id, holding.run_id);
    expect((await agentServer("GET", `/threads/${thread.thread_id}`)).body.status).toBe("busy");
    await agentServer("POST", `/threads/${thread.thread_id}/runs/${holding.run_id}/cancel`);

    const failing = await createRun(thread.thread_id, { assistant_id: "agent", input: say("[[fail]]") });
    expect((await join(thread.thread_id, failing.run_id)).body).toEqual({
      __error__: { error: "EmulatedNodeError", message: expect.stringContaining("[[fail]]") },
    });
    expect((await getRun(thread.thread_id, failing.run_id)).body.status).toBe("error");
    expect((await agentServer("GET", `/threads/${thread.thread_id}`)).body.status).toBe("error");
  });
});

describe("multitask strategies", () => {
  it("reject: 409 while a run is in flight, and no run is created", async () => {
    const thread = await createThread();
    const first = await createRun(thread.thread_id, { assistant_id: "agent", input: held("first") });
    const second = await agentServer("POST", `/threads/${thread.thread_id}/runs`, {
      body: { assistant_id: "agent", input: say("second"), multitask_strategy: "reject" },
    });
    expect(second.status).toBe(409);
    expect(second.body.detail).toContain(`Thread ${thread.thread_id} is busy with run ${first.run_id}`);
    const listed = (await agentServer("GET", `/threads/${thread.thread_id}/runs`)).body;
    expect(listed.map((r: any) => r.run_id)).toEqual([first.run_id]);
    await agentServer("POST", `/threads/${thread.thread_id}/runs/${first.run_id}/cancel`);
  });

  it("enqueue (the default): the second run is pending until the first is over, then runs on its values", async () => {
    const thread = await createThread();
    const first = await createRun(thread.thread_id, { assistant_id: "agent", input: held("first") });
    const second = await createRun(thread.thread_id, { assistant_id: "agent", input: say("second") });
    expect(second).toMatchObject({ status: "pending", multitask_strategy: "enqueue" });
    await untilRunning(thread.thread_id, first.run_id);
    expect((await getRun(thread.thread_id, second.run_id)).body.status).toBe("pending");

    await agentServer("POST", `/threads/${thread.thread_id}/runs/${first.run_id}/cancel`);
    const outcome = await join(thread.thread_id, second.run_id);
    expect(contents(outcome.body)).toEqual(["first [[hold]]", "second", "you said: second"]);
    expect((await getRun(thread.thread_id, first.run_id)).body.status).toBe("interrupted");
    expect((await getRun(thread.thread_id, second.run_id)).body.status).toBe("success");
  });

  it("interrupt: the run in flight stops, keeping its progress, and the new one runs after it", async () => {
    const thread = await createThread();
    const first = await createRun(thread.thread_id, { assistant_id: "pipeline", input: held("first") });
    // The pipeline drafts, then holds before review: wait for the draft's checkpoint.
    await untilValuesShow(thread.thread_id, first.run_id, "draft: first [[hold]]");
    const second = await createRun(thread.thread_id, { assistant_id: "pipeline", input: say("second"), multitask_strategy: "interrupt" });
    const outcome = await join(thread.thread_id, second.run_id);
    expect(contents(outcome.body)).toEqual(["first [[hold]]", "draft: first [[hold]]", "second", "draft: second", "reviewed: second"]);
    expect((await getRun(thread.thread_id, first.run_id)).body.status).toBe("interrupted");
    expect((await getRun(thread.thread_id, second.run_id)).body).toMatchObject({ status: "success", multitask_strategy: "interrupt" });
  });

  it("rollback: the run in flight is deleted with its checkpoints, and the new one runs as if it never had", async () => {
    const thread = await createThread();
    await join(thread.thread_id, (await createRun(thread.thread_id, { assistant_id: "agent", input: say("before") })).run_id);
    const first = await createRun(thread.thread_id, { assistant_id: "pipeline", input: held("first") });
    await untilValuesShow(thread.thread_id, first.run_id, "draft: first [[hold]]");
    const second = await createRun(thread.thread_id, { assistant_id: "agent", input: say("second"), multitask_strategy: "rollback" });
    const outcome = await join(thread.thread_id, second.run_id);
    expect(contents(outcome.body)).toEqual(["before", "you said: before", "second", "you said: second"]);
    expect((await getRun(thread.thread_id, first.run_id)).status).toBe(404);
    const history = (await agentServer("POST", `/threads/${thread.thread_id}/history`, { body: { limit: 100 } })).body;
    expect(history.map((s: any) => s.metadata.run_id)).not.toContain(first.run_id);
  });
});

describe("cancel", () => {
  it("interrupt (the default) stops a running run where it is: interrupted, its checkpoints kept, the thread idle", async () => {
    const thread = await createThread();
    const run = await createRun(thread.thread_id, { assistant_id: "pipeline", input: held("stop me") });
    await untilValuesShow(thread.thread_id, run.run_id, "draft: stop me [[hold]]");
    const cancelled = await agentServer("POST", `/threads/${thread.thread_id}/runs/${run.run_id}/cancel`);
    expect(cancelled).toMatchObject({ status: 200, body: {} });
    expect(contents((await join(thread.thread_id, run.run_id)).body)).toEqual(["stop me [[hold]]", "draft: stop me [[hold]]"]);
    expect((await getRun(thread.thread_id, run.run_id)).body.status).toBe("interrupted");
    const after = (await agentServer("GET", `/threads/${thread.thread_id}`)).body;
    expect(after.status).toBe("idle");
    expect(contents(after.values)).toEqual(["stop me [[hold]]", "draft: stop me [[hold]]"]);
    // The state shows where it stopped: the review is next.
    expect((await agentServer("GET", `/threads/${thread.thread_id}/state`)).body.next).toEqual(["review"]);
  });

  it("rollback with wait deletes the run and its checkpoints once it has stopped", async () => {
    const thread = await createThread();
    await join(thread.thread_id, (await createRun(thread.thread_id, { assistant_id: "agent", input: say("kept") })).run_id);
    const run = await createRun(thread.thread_id, { assistant_id: "pipeline", input: held("undone") });
    await untilRunning(thread.thread_id, run.run_id);
    const cancelled = await agentServer("POST", `/threads/${thread.thread_id}/runs/${run.run_id}/cancel?wait=true&action=rollback`);
    expect(cancelled.status).toBe(200);
    expect((await getRun(thread.thread_id, run.run_id)).status).toBe(404);
    const after = (await agentServer("GET", `/threads/${thread.thread_id}`)).body;
    expect(after.status).toBe("idle");
    expect(contents(after.values)).toEqual(["kept", "you said: kept"]);
    expect(contents((await agentServer("GET", `/threads/${thread.thread_id}/state`)).body.values)).toEqual(["kept", "you said: kept"]);
  });

  it("cancels a pending run at once: interrupt marks it interrupted, rollback deletes it; a finished run stays as it was", async () => {
    const thread = await createThread();
    const holding = await createRun(thread.thread_id, { assistant_id: "agent", input: held("hold") });
    const queued = await createRun(thread.thread_id, { assistant_id: "agent", input: say("queued") });
    const dropped = await createRun(thread.thread_id, { assistant_id: "agent", input: say("dropped") });
    await agentServer("POST", `/threads/${thread.thread_id}/runs/${queued.run_id}/cancel?action=interrupt`);
    await agentServer("POST", `/threads/${thread.thread_id}/runs/${dropped.run_id}/cancel?action=rollback`);
    expect((await getRun(thread.thread_id, queued.run_id)).body.status).toBe("interrupted");
    expect((await getRun(thread.thread_id, dropped.run_id)).status).toBe(404);
    expect((await getRun(thread.thread_id, holding.run_id)).body.status).toBe("running");

    await agentServer("POST", `/threads/${thread.thread_id}/runs/${holding.run_id}/cancel?wait=1`);
    const done = await createRun(thread.thread_id, { assistant_id: "agent", input: say("done") });
    await join(thread.thread_id, done.run_id);
    expect((await agentServer("POST", `/threads/${thread.thread_id}/runs/${done.run_id}/cancel`)).status).toBe(200);
    expect((await getRun(thread.thread_id, done.run_id)).body.status).toBe("success");
  });

  it("answers 404 for an unknown thread or run and 422 for an unknown action or a bad id", async () => {
    const thread = await createThread();
    const unknownRun = crypto.randomUUID();
    expect(await agentServer("POST", `/threads/${thread.thread_id}/runs/${unknownRun}/cancel`)).toMatchObject({
      status: 404,
      body: { detail: `Run ${unknownRun} not found in thread ${thread.thread_id}.` },
    });
    expect((await agentServer("POST", `/threads/${crypto.randomUUID()}/runs/${unknownRun}/cancel`)).status).toBe(404);
    const badAction = await agentServer("POST", `/threads/${thread.thread_id}/runs/${unknownRun}/cancel?action=stop`);
    expect(badAction.status).toBe(422);
    expect(badAction.body.detail[0]).toMatchObject({ type: "enum", loc: ["query", "action"], input: "stop" });
    expect((await agentServer("POST", `/threads/${thread.thread_id}/runs/nope/cancel`)).body.detail[0]).toMatchObject({
      type: "uuid_parsing",
      loc: ["path", "run_id"],
    });
  });

  it("POST /runs/cancel cancels listed runs of a thread (204), 404 when none is found, 422 for status with ids", async () => {
    const thread = await createThread();
    const a = await createRun(thread.thread_id, { assistant_id: "agent", input: held("a") });
    const b = await createRun(thread.thread_id, { assistant_id: "agent", input: say("b") });
    const res = await agentServer("POST", "/runs/cancel?action=interrupt", { body: { thread_id: thread.thread_id, run_ids: [a.run_id, b.run_id] } });
    expect(res.status).toBe(204);
    expect((await untilOver(thread.thread_id, a.run_id)).body.status).toBe("interrupted");
    expect((await getRun(thread.thread_id, b.run_id)).body.status).toBe("interrupted");

    const other = await createThread();
    expect((await agentServer("POST", "/runs/cancel", { body: { thread_id: other.thread_id, run_ids: [a.run_id] } })).status).toBe(404);
    const both = await agentServer("POST", "/runs/cancel", { body: { status: "all", thread_id: thread.thread_id, run_ids: [a.run_id] } });
    expect(both.status).toBe(422);
    expect(both.body.detail[0]).toMatchObject({ type: "value_error", loc: ["body"] });
    expect((await agentServer("POST", "/runs/cancel", { body: {} })).status).toBe(422);
    expect((await agentServer("POST", "/runs/cancel", { body: { status: "done" } })).body.detail[0]).toMatchObject({ type: "enum", loc: ["body", "status"] });
  });
});

describe("on_disconnect", () => {
  it("cancel: a streamed run is interrupted when its client hangs up", async () => {
    const thread = await createThread();
    const { res, events } = await openEvents("POST", `/threads/${thread.thread_id}/runs/stream`, {
      body: { assistant_id: "agent", input: held("hang up"), on_disconnect: "cancel" },
    });
    const runId = res.headers.get("content-location")!.split("/").at(-1)!;
    await events.until((e) => e.event === "metadata");
    await events.drop();
    expect((await untilOver(thread.thread_id, runId)).body.status).toBe("interrupted");
  });

  it("cancel_on_disconnect on join: the run is interrupted when the joining client hangs up", async () => {
    const thread = await createThread();
    const run = await createRun(thread.thread_id, { assistant_id: "agent", input: held("join and leave") });
    // The gateway's own fetch, not the contract-checked one: the checker reads a JSON body to its
    // end, and this client leaves before there is one (the headers are all it gets).
    const res = await exports.default.fetch(`${AGENT_SERVER_URL}/threads/${thread.thread_id}/runs/${run.run_id}/join?cancel_on_disconnect=true`, {
      headers: freshCaller(),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/json");
    await res.body!.cancel();
    expect((await untilOver(thread.thread_id, run.run_id)).body.status).toBe("interrupted");
  });
});

describe("a restart of the state object", () => {
  it("resumes a run in flight from its last checkpoint, as its next attempt", async () => {
    const thread = await createThread();
    const run = await createRun(thread.thread_id, { assistant_id: "pipeline", input: held("survive") });
    await untilValuesShow(thread.thread_id, run.run_id, "draft: survive [[hold]]");

    await restartStateObject();

    // The next request starts the object again, and with it the run: attempt 2, from the draft.
    const { events } = await openEvents("GET", `/threads/${thread.thread_id}/runs/${run.run_id}/stream`);
    await events.until((e) => e.event === "metadata" && e.data.attempt === 2);
    expect((await getRun(thread.thread_id, run.run_id)).body.status).toBe("running");
    await agentServer("POST", `/threads/${thread.thread_id}/runs/${run.run_id}/cancel`);
    await events.rest();

    const history = (await agentServer("POST", `/threads/${thread.thread_id}/history`, { body: { limit: 100 } })).body;
    const writers = history.map((s: any) => Object.keys(s.metadata.writes ?? {})[0]).reverse();
    // One input, one start, one draft: nothing ran twice.
    expect(writers).toEqual(["__start__", undefined, "draft"]);
    expect(contents((await agentServer("GET", `/threads/${thread.thread_id}`)).body.values)).toEqual(["survive [[hold]]", "draft: survive [[hold]]"]);
  });
});

describe("state kept by an emulator before the engine", () => {
  it("times out a run it left running (nothing to resume it from), and the thread takes the next", async () => {
    const thread = await createThread();
    const legacy = crypto.randomUUID();
    await runInDurableObject(stateOf(agentServerEnv), (_, state) => {
      const at = new Date().toISOString();
      state.storage.sql.exec(
        `INSERT INTO runs (run_id, thread_id, assistant_id, created_at, updated_at, status, metadata, kwargs, multitask_strategy, lease_expires_at)
         VALUES (?, ?, 'fe096781-5601-53d2-b2f6-0d3403f7e9ca', ?, ?, 'running', '{}', '{}', 'reject', 0)`,
        legacy,
        thread.thread_id,
        at,
        at,
      );
    });
    const next = await createRun(thread.thread_id, { assistant_id: "agent", input: say("after") });
    expect(contents((await join(thread.thread_id, next.run_id)).body)).toEqual(["after", "you said: after"]);
    expect((await getRun(thread.thread_id, legacy)).body.status).toBe("timeout");
  });
});
