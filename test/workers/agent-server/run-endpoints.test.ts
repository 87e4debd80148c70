// The run endpoints besides the stream: list, get, delete, wait, join, and stateless runs (on a
// thread of their own): background, stream, wait and batch. Each answer is held to the document.
import { describe, expect, it } from "vitest";
import { agentServer, createThread, readEvents, send } from "./support.ts";
import { contents, createRun, getRun, held, join, openEvents, say, untilOver } from "./run-support.ts";

describe("POST /threads/{thread_id}/runs/wait", () => {
  it("answers the thread's values once the run is over, with Content-Location and Location", async () => {
    const thread = await createThread();
    const res = await agentServer("POST", `/threads/${thread.thread_id}/runs/wait`, { body: { assistant_id: "pipeline", input: say("wait for it") } });
    expect(res.status).toBe(200);
    expect(contents(res.body)).toEqual(["wait for it", "draft: wait for it", "reviewed: wait for it"]);
    const location = res.headers.get("content-location")!;
    expect(location).toMatch(new RegExp(`^/threads/${thread.thread_id}/runs/[0-9a-f-]{36}$`));
    expect(res.headers.get("location")).toBe(`${location}/join`);
    expect((await agentServer("GET", location)).body.status).toBe("success");
  });

  it("answers {__error__} for a run that fails, and the refusals of any run creation", async () => {
    const thread = await createThread();
    const failed = await agentServer("POST", `/threads/${thread.thread_id}/runs/wait`, { body: { assistant_id: "agent", input: say("[[fail]]") } });
    expect(failed).toMatchObject({ status: 200, body: { __error__: { error: "EmulatedNodeError" } } });
    expect((await agentServer("POST", `/threads/${crypto.randomUUID()}/runs/wait`, { body: { assistant_id: "agent" } })).status).toBe(404);
    expect((await agentServer("POST", `/threads/${thread.thread_id}/runs/wait`, { body: { assistant_id: crypto.randomUUID() } })).status).toBe(404);
    const invalid = await agentServer("POST", `/threads/${thread.thread_id}/runs/wait`, { body: { assistant_id: "agent", multitask_strategy: "later" } });
    expect(invalid.status).toBe(422);
    expect(invalid.body.detail[0]).toMatchObject({ type: "enum", loc: ["body", "multitask_strategy"] });
  });
});

describe("GET /threads/{thread_id}/runs/{run_id}/join", () => {
  it("waits for a run in flight, answers at once for one that is over, 404 for an unknown run", async () => {
    const thread = await createThread();
    const run = await createRun(thread.thread_id, { assistant_id: "agent", input: say("join me") });
    const joined = await join(thread.thread_id, run.run_id);
    expect(joined.status).toBe(200);
    expect(contents(joined.body)).toEqual(["join me", "you said: join me"]);
    expect((await join(thread.thread_id, run.run_id)).body).toEqual(joined.body);
    expect((await join(thread.thread_id, crypto.randomUUID())).status).toBe(404);
    expect((await join(crypto.randomUUID(), run.run_id)).status).toBe(404);
  });
});

describe("GET /threads/{thread_id}/runs", () => {
  it("lists a thread's runs newest first, paged and filtered by status", async () => {
    const thread = await createThread();
    const ids: string[] = [];
    for (const text of ["one", "two", "[[fail]]"]) {
      const run = await createRun(thread.thread_id, { assistant_id: "agent", input: say(text) });
      await join(thread.thread_id, run.run_id);
      ids.push(run.run_id);
    }
    const all = await agentServer("GET", `/threads/${thread.thread_id}/runs`);
    expect(all.status).toBe(200);
    expect(all.body.map((r: any) => r.run_id)).toEqual([...ids].reverse());
    const page = await agentServer("GET", `/threads/${thread.thread_id}/runs?limit=1&offset=1`);
    expect(page.body.map((r: any) => r.run_id)).toEqual([ids[1]]);
    const failed = await agentServer("GET", `/threads/${thread.thread_id}/runs?status=error`);
    expect(failed.body.map((r: any) => r.run_id)).toEqual([ids[2]]);
  });

  it("answers 404 for an unknown thread and 422 for bad paging or status", async () => {
    expect((await agentServer("GET", `/threads/${crypto.randomUUID()}/runs`)).status).toBe(404);
    const thread = await createThread();
    const bad = await agentServer("GET", `/threads/${thread.thread_id}/runs?limit=0&status=done`);
    expect(bad.status).toBe(422);
    expect(bad.body.detail.map((e: any) => [e.type, e.loc.join(".")])).toEqual([
      ["greater_than_equal", "query.limit"],
      ["enum", "query.status"],
    ]);
  });
});

describe("DELETE /threads/{thread_id}/runs/{run_id}", () => {
  it("deletes a run that is over with its checkpoints; the thread's values go back", async () => {
    const thread = await createThread();
    await join(thread.thread_id, (await createRun(thread.thread_id, { assistant_id: "agent", input: say("stays") })).run_id);
    const run = await createRun(thread.thread_id, { assistant_id: "agent", input: say("goes") });
    await join(thread.thread_id, run.run_id);
    const res = await agentServer("DELETE", `/threads/${thread.thread_id}/runs/${run.run_id}`);
    expect(res).toMatchObject({ status: 200, body: {} });
    expect((await getRun(thread.thread_id, run.run_id)).status).toBe(404);
    expect(contents((await agentServer("GET", `/threads/${thread.thread_id}/state`)).body.values)).toEqual(["stays", "you said: stays"]);
    expect(contents((await agentServer("GET", `/threads/${thread.thread_id}`)).body.values)).toEqual(["stays", "you said: stays"]);
  });

  it("answers 409 for a run in flight, 404 for an unknown one", async () => {
    const thread = await createThread();
    const run = await createRun(thread.thread_id, { assistant_id: "agent", input: held("busy") });
    const res = await agentServer("DELETE", `/threads/${thread.thread_id}/runs/${run.run_id}`);
    expect(res.status).toBe(409);
    expect(res.body.detail).toContain("Cancel it first");
    await agentServer("POST", `/threads/${thread.thread_id}/runs/${run.run_id}/cancel?action=rollback`);
    // The rollback deletes it once it has stopped, which is when join answers.
    expect((await untilOver(thread.thread_id, run.run_id)).status).toBe(404);
    expect((await agentServer("DELETE", `/threads/${thread.thread_id}/runs/${run.run_id}`)).status).toBe(404);
  });
});

describe("deleting a thread", () => {
  it("stops its run in flight and ends the streams following it", async () => {
    const thread = await createThread();
    const run = await createRun(thread.thread_id, { assistant_id: "agent", input: held("orphan") });
    // Once the join stream has answered, it is following the run.
    const { events } = await openEvents("GET", `/threads/${thread.thread_id}/runs/${run.run_id}/stream`);
    await events.until((e) => e.event === "metadata");
    await agentServer("DELETE", `/threads/${thread.thread_id}`);
    await events.rest(); // ends: the run is gone
    expect((await getRun(thread.thread_id, run.run_id)).status).toBe(404);
  });
});

describe("stateless runs", () => {
  it("POST /runs/wait runs on a thread of its own and deletes it after (on_completion: delete)", async () => {
    const res = await agentServer("POST", "/runs/wait", { body: { assistant_id: "agent", input: say("no thread") } });
    expect(res.status).toBe(200);
    expect(contents(res.body)).toEqual(["no thread", "you said: no thread"]);
    const threadPath = res.headers.get("content-location")!.split("/runs/")[0]!;
    expect((await agentServer("GET", threadPath)).status).toBe(404);
  });

  it("keeps the thread with on_completion: keep", async () => {
    const res = await agentServer("POST", "/runs/wait", { body: { assistant_id: "agent", input: say("keep it"), on_completion: "keep" } });
    const run = await agentServer("GET", res.headers.get("content-location")!);
    expect(run.body.status).toBe("success");
    const thread = (await agentServer("GET", `/threads/${run.body.thread_id}`)).body;
    expect(contents(thread.values)).toEqual(["keep it", "you said: keep it"]);
  });

  it("POST /runs/stream streams a run with Content-Location /runs/{run_id}", async () => {
    const res = await send("POST", "/runs/stream", { body: { assistant_id: "pipeline", input: say("streamed"), stream_mode: ["updates"] } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    const events = await readEvents(res);
    expect(events.map((e) => e.event)).toEqual(["metadata", "updates", "updates"]);
    expect(res.headers.get("content-location")).toBe(`/runs/${events[0]!.data.run_id}`);
    expect(res.headers.get("location")).toBeNull();
  });

  it("POST /runs answers the pending run at once and runs it in the background", async () => {
    const res = await agentServer("POST", "/runs", { body: { assistant_id: "agent", input: say("later"), on_completion: "keep" } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: "pending", assistant_id: "fe096781-5601-53d2-b2f6-0d3403f7e9ca" });
    expect(res.headers.get("content-location")).toBe(`/runs/${res.body.run_id}`);
    expect((await untilOver(res.body.thread_id, res.body.run_id)).body.status).toBe("success");
  });

  it("POST /runs/batch creates every run, or none when one is refused", async () => {
    const res = await agentServer("POST", "/runs/batch", {
      body: [
        { assistant_id: "agent", input: say("a"), on_completion: "keep" },
        { assistant_id: "pipeline", input: say("b"), on_completion: "keep" },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body.map((r: any) => r.status)).toEqual(["pending", "pending"]);
    for (const run of res.body) expect((await untilOver(run.thread_id, run.run_id)).body.status).toBe("success");

    const refused = await agentServer("POST", "/runs/batch", { body: [{ assistant_id: "agent", on_completion: "keep" }, { assistant_id: "nope" }] });
    expect(refused.status).toBe(404);
    const empty = await agentServer("POST", "/runs/batch", { body: [] });
    expect(empty.status).toBe(422);
    expect(empty.body.detail[0]).toMatchObject({ type: "too_short", loc: ["body"] });
  });

  it("answers 404 for an unknown assistant and 422 for a bad body", async () => {
    expect((await agentServer("POST", "/runs/wait", { body: { assistant_id: "nope" } })).status).toBe(404);
    const bad = await agentServer("POST", "/runs", { body: { assistant_id: "agent", on_completion: "forget" } });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0]).toMatchObject({ type: "enum", loc: ["body", "on_completion"] });
    expect((await agentServer("POST", "/runs/stream", { body: {} })).body.detail[0]).toMatchObject({ type: "missing", loc: ["body", "assistant_id"] });
  });
});
