// Joining a run's stream (GET /threads/{thread_id}/runs/{run_id}/stream) and a thread's
// (GET /threads/{thread_id}/stream): what was already emitted is replayed, a client that lost its
// connection resumes after the last event id it saw, and nothing comes twice.
import { describe, expect, it } from "vitest";
import { agentServer, createThread, readEvents, send, streamRun } from "./support.ts";
import { createRun, held, join, openEvents, say } from "./run-support.ts";

const ids = (events: ReadonlyArray<{ id?: string }>) => events.map((e) => e.id);

describe("joining a run's stream", () => {
  it("replays a finished run from its first event, with ids, Location and Content-Location", async () => {
    const thread = await createThread();
    const run = await createRun(thread.thread_id, { assistant_id: "pipeline", input: say("replay"), stream_mode: ["updates", "values"] });
    await join(thread.thread_id, run.run_id);
    const res = await send("GET", `/threads/${thread.thread_id}/runs/${run.run_id}/stream`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    expect(res.headers.get("content-location")).toBe(`/threads/${thread.thread_id}/runs/${run.run_id}`);
    expect(res.headers.get("location")).toBe(`/threads/${thread.thread_id}/runs/${run.run_id}/stream`);
    const events = await readEvents(res);
    expect(events.map((e) => e.event)).toEqual(["metadata", "values", "updates", "values", "updates", "values"]);
    expect(events[0]!.data).toEqual({ run_id: run.run_id, attempt: 1 });
    // Ids increase, so a client can say where it stopped.
    const numbers = ids(events).map(Number);
    expect(numbers).toEqual([...numbers].sort((a, b) => a - b));
    expect(new Set(numbers).size).toBe(numbers.length);
  });

  it("resumes after a dropped stream from Last-Event-ID: the rest, nothing twice; -1 replays all", async () => {
    const thread = await createThread();
    const run = await createRun(thread.thread_id, { assistant_id: "pipeline", input: say("resume"), stream_mode: ["updates"] });
    await join(thread.thread_id, run.run_id);
    const path = `/threads/${thread.thread_id}/runs/${run.run_id}/stream`;
    const all = await readEvents(await send("GET", path));

    const first = await openEvents("GET", path);
    const seen = [await first.events.next(), await first.events.next()];
    await first.events.drop();
    const rest = await readEvents(await send("GET", path, { headers: { "last-event-id": seen[1]!.id! } }));
    expect([...seen, ...rest]).toEqual(all);
    expect(await readEvents(await send("GET", path, { headers: { "last-event-id": "-1" } }))).toEqual(all);
  });

  it("follows a run still going, live, and ends when it ends", async () => {
    const thread = await createThread();
    const run = await createRun(thread.thread_id, { assistant_id: "pipeline", input: held("live"), stream_mode: ["updates"] });
    const path = `/threads/${thread.thread_id}/runs/${run.run_id}/stream`;
    const first = await openEvents("GET", path);
    const draft = await first.events.until((e) => e.event === "updates");
    expect(Object.keys(draft.data)).toEqual(["draft"]);
    await first.events.drop();

    // Reconnected after the draft: nothing of it again, and the stream stays open while the run holds.
    const again = await openEvents("GET", path, { headers: { "last-event-id": draft.id! } });
    await agentServer("POST", `/threads/${thread.thread_id}/runs/${run.run_id}/cancel`);
    expect(await again.events.rest()).toEqual([]);
  });

  it("shows only the stream modes asked for (and metadata)", async () => {
    const thread = await createThread();
    const run = await createRun(thread.thread_id, { assistant_id: "agent", input: say("modes"), stream_mode: ["updates", "values"] });
    await join(thread.thread_id, run.run_id);
    const only = await readEvents(await send("GET", `/threads/${thread.thread_id}/runs/${run.run_id}/stream?stream_mode=updates`));
    expect(only.map((e) => e.event)).toEqual(["metadata", "updates"]);
    const list = await readEvents(await send("GET", `/threads/${thread.thread_id}/runs/${run.run_id}/stream?stream_mode=${encodeURIComponent('["values"]')}`));
    expect(list.map((e) => e.event)).toEqual(["metadata", "values", "values"]);
  });

  it("answers 404 for an unknown run or thread, 422 for a bad Last-Event-ID or stream mode", async () => {
    const thread = await createThread();
    expect((await agentServer("GET", `/threads/${thread.thread_id}/runs/${crypto.randomUUID()}/stream`)).status).toBe(404);
    const run = await createRun(thread.thread_id, { assistant_id: "agent", input: say("x") });
    expect((await agentServer("GET", `/threads/${crypto.randomUUID()}/runs/${run.run_id}/stream`)).status).toBe(404);
    const badId = await agentServer("GET", `/threads/${thread.thread_id}/runs/${run.run_id}/stream`, { headers: { "last-event-id": "yesterday" } });
    expect(badId.status).toBe(422);
    expect(badId.body.detail[0]).toMatchObject({ type: "value_error", loc: ["header", "Last-Event-ID"] });
    const badMode = await agentServer("GET", `/threads/${thread.thread_id}/runs/${run.run_id}/stream?stream_mode=everything`);
    expect(badMode.status).toBe(422);
  });
});

describe("a run's own stream", () => {
  it("with stream_resumable writes ids and names the join stream in Location, to reconnect to", async () => {
    const thread = await createThread();
    const { res, events } = await streamRun(thread.thread_id, {
      assistant_id: "agent",
      input: say("resumable"),
      stream_mode: ["updates"],
      stream_resumable: true,
    });
    const runPath = res.headers.get("content-location")!;
    expect(res.headers.get("location")).toBe(`${runPath}/stream`);
    expect(events.every((e) => /^\d+$/.test(e.id ?? ""))).toBe(true);
    const resumed = await readEvents(await send("GET", `${runPath}/stream`, { headers: { "last-event-id": events[0]!.id! } }));
    expect(resumed).toEqual(events.slice(1));
  });
});

describe("joining a thread's stream", () => {
  it("shows each run on the thread as it happens, ending each with metadata run_done", async () => {
    const thread = await createThread();
    const { events } = await openEvents("GET", `/threads/${thread.thread_id}/stream`);
    const first = await createRun(thread.thread_id, { assistant_id: "agent", input: say("one"), stream_mode: ["updates"] });
    const second = await createRun(thread.thread_id, { assistant_id: "agent", input: say("two"), stream_mode: ["updates"] });
    await events.until((e) => e.event === "metadata" && e.data.status === "run_done" && e.data.run_id === second.run_id);
    await events.drop();
    expect(events.seen.map((e) => [e.event, e.data.run_id ?? Object.keys(e.data)[0]])).toEqual([
      ["metadata", first.run_id],
      ["updates", "agent"],
      ["metadata", first.run_id],
      ["metadata", second.run_id],
      ["updates", "agent"],
      ["metadata", second.run_id],
    ]);
  });

  it("replays from Last-Event-ID (-1: everything kept), filters by stream_modes, 404 for an unknown thread", async () => {
    const thread = await createThread();
    const run = await createRun(thread.thread_id, { assistant_id: "agent", input: say("kept"), stream_mode: ["updates"] });
    await join(thread.thread_id, run.run_id);
    await agentServer("POST", `/threads/${thread.thread_id}/state`, { body: { values: { messages: [{ role: "user", content: "edited" }] } } });

    const all = await openEvents("GET", `/threads/${thread.thread_id}/stream?stream_modes=run_modes,state_update`, { headers: { "last-event-id": "-1" } });
    await all.events.until((e) => e.event === "state_update");
    await all.events.drop();
    expect(all.events.seen.map((e) => e.event)).toEqual(["metadata", "updates", "metadata", "state_update"]);

    const lifecycle = await openEvents("GET", `/threads/${thread.thread_id}/stream?stream_modes=lifecycle`, { headers: { "last-event-id": "-" } });
    await lifecycle.events.until((e) => e.data.status === "run_done");
    await lifecycle.events.drop();
    expect(lifecycle.events.seen.map((e) => e.event)).toEqual(["metadata", "metadata"]);

    // After the run's first event: the rest of it.
    const after = await openEvents("GET", `/threads/${thread.thread_id}/stream?stream_modes=${encodeURIComponent('["run_modes","state_update"]')}`, {
      headers: { "last-event-id": all.events.seen[0]!.id! },
    });
    await after.events.until((e) => e.event === "state_update");
    await after.events.drop();
    expect(after.events.seen).toEqual(all.events.seen.slice(1));

    expect((await agentServer("GET", `/threads/${crypto.randomUUID()}/stream`)).status).toBe(404);
    expect((await agentServer("GET", `/threads/${thread.thread_id}/stream?stream_modes=everything`)).status).toBe(422);
  });
});
