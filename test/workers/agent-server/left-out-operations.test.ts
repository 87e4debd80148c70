// The operations the official clients call that the emulator left out until issue 24: updating a
// cron (`crons.update`, PATCH /runs/crons/{cron_id}), joining a stateless run by its id alone
// (`runs.joinStream(null, runId)`, GET /runs/{run_id}/stream), and `select` on the run list. Every
// answer is held to the contract (the two operations the document lacks as the contract adds them).
import { describe, expect, it } from "vitest";
import { agentServer, createThread, officialClient, readEvents, send } from "./support.ts";
import { join, say } from "./run-support.ts";

// Once a year, so the machine's own clock never makes it due while a test runs.
const YEARLY = "0 0 1 1 *";

describe("PATCH /runs/crons/{cron_id} (crons.update)", () => {
  it("replaces the fields given, merges metadata, and moves the next run date for a new schedule", async () => {
    const client = officialClient();
    const thread = await client.threads.create();
    const cron = await client.crons.createForThread(thread.thread_id, "agent", { schedule: YEARLY, input: say("tick"), metadata: { job: "a", keep: 1 } });
    const updated = await client.crons.update(cron.cron_id, { schedule: "0 0 1 6 *", input: say("tock"), metadata: { job: "b" }, enabled: false });
    expect(updated).toMatchObject({
      cron_id: cron.cron_id,
      schedule: "0 0 1 6 *",
      metadata: { job: "b", keep: 1 },
      enabled: false,
      thread_id: thread.thread_id,
    });
    expect(updated.payload).toMatchObject({ input: say("tock"), schedule: "0 0 1 6 *" });
    expect(new Date(updated.next_run_date!).getUTCMonth()).toBe(5);
    expect(Date.parse(updated.updated_at)).toBeGreaterThanOrEqual(Date.parse(cron.updated_at));
    const [found] = await client.crons.search({ threadId: thread.thread_id });
    expect(found).toEqual(updated);
    // A field left out keeps its value.
    expect(await client.crons.update(cron.cron_id, {})).toEqual({ ...updated, updated_at: expect.any(String) });
  });

  it("answers 404 for an unknown cron and 422 for what it cannot take", async () => {
    const thread = await createThread();
    const cron = (await agentServer("POST", `/threads/${thread.thread_id}/runs/crons`, { body: { schedule: YEARLY, assistant_id: "agent" } })).body;
    expect((await agentServer("PATCH", `/runs/crons/${crypto.randomUUID()}`, { body: { enabled: false } })).status).toBe(404);
    const bad = await agentServer("PATCH", `/runs/crons/${cron.cron_id}`, { body: { schedule: "not a schedule", enabled: "maybe", context: { unknown: 1 } } });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0]).toMatchObject({ type: "bool_type", loc: ["body", "enabled"] });
    const never = await agentServer("PATCH", `/runs/crons/${cron.cron_id}`, { body: { schedule: "0 0 30 2 *" } });
    expect(never.body.detail[0]).toMatchObject({ type: "value_error", loc: ["body", "schedule"] });
    const context = await agentServer("PATCH", `/runs/crons/${cron.cron_id}`, { body: { context: { unknown: 1 } } });
    expect(context.status).toBe(422);
    expect(context.body.detail[0].loc.slice(0, 2)).toEqual(["body", "context"]);
    const threadCron = await agentServer("PATCH", `/runs/crons/${cron.cron_id}`, { body: { on_run_completed: "keep" } });
    expect(threadCron.body.detail[0]).toMatchObject({ type: "value_error", loc: ["body", "on_run_completed"] });
    expect((await agentServer("PATCH", "/runs/crons/x", { body: {} })).body.detail[0]).toMatchObject({ type: "uuid_parsing", loc: ["path", "cron_id"] });
    // Nothing refused was written.
    expect((await agentServer("POST", "/runs/crons/search", { body: { thread_id: thread.thread_id } })).body).toEqual([cron]);
  });
});

describe("GET /runs/{run_id}/stream (runs.joinStream without a thread)", () => {
  it("replays a stateless run by its id alone, with ids and its Location, as the join on its thread does", async () => {
    const client = officialClient();
    // The client's `runs.create` does not send `onCompletion`; the thread is kept so the run is still there to join.
    const run = (
      await agentServer("POST", "/runs", { body: { assistant_id: "agent", input: say("hello"), on_completion: "keep", stream_mode: ["values", "updates"] } })
    ).body;
    await join(run.thread_id, run.run_id);
    const events: { event: string; data: any }[] = [];
    for await (const part of client.runs.joinStream(null, run.run_id)) events.push(part);
    expect(events[0]).toEqual({ event: "metadata", data: { run_id: run.run_id, attempt: 1 }, id: expect.any(String) });
    expect(events.filter((e) => e.event === "updates").at(-1)!.data.agent.messages[0].content).toBe("you said: hello");

    const raw = await send("GET", `/runs/${run.run_id}/stream?stream_mode=updates`, { headers: { "last-event-id": "-1" } });
    expect(raw.headers.get("location")).toBe(`/runs/${run.run_id}/stream`);
    const modes = (await readEvents(raw)).map((e) => e.event);
    expect(new Set(modes)).toEqual(new Set(["metadata", "updates"]));
  });

  it("answers 404 for a run nobody created and 422 for an id that is not one", async () => {
    expect((await agentServer("GET", `/runs/${crypto.randomUUID()}/stream`)).status).toBe(404);
    expect((await agentServer("GET", "/runs/x/stream")).body.detail[0]).toMatchObject({ type: "uuid_parsing", loc: ["path", "run_id"] });
  });
});

describe("GET /threads/{thread_id}/runs?select=", () => {
  it("answers only the fields asked for, as the official client asks for them", async () => {
    const client = officialClient();
    const thread = await client.threads.create();
    const run = await client.runs.create(thread.thread_id, "agent", { input: say("a") });
    await join(thread.thread_id, run.run_id);
    expect(await client.runs.list(thread.thread_id, { select: ["run_id", "status"] })).toEqual([{ run_id: run.run_id, status: "success" }]);
    const one = await agentServer("GET", `/threads/${thread.thread_id}/runs?select=assistant_id`);
    expect(one.body).toEqual([{ assistant_id: run.assistant_id }]);
    expect((await agentServer("GET", `/threads/${thread.thread_id}/runs`)).body[0]).toHaveProperty("kwargs");
  });
});
