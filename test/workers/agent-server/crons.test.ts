// Crons: POST /threads/{thread_id}/runs/crons, POST /runs/crons, search, count, delete, and
// firing: the state object's alarm starts each due cron's run through the emulator's own API.
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { stateOf } from "../../../emulators/agent-server/state-access.ts";
import { advanceClock, stateObject } from "./clock.ts";
import { AGENT_DEFAULT_ID, agentServer, createAssistant, createThread, freshTag, TIMESTAMP, UUID } from "./support.ts";
import { agentServerEnv } from "../support/emulator-env.ts";

const createThreadCron = (threadId: string, body: Record<string, unknown>) => agentServer("POST", `/threads/${threadId}/runs/crons`, { body });
const createCron = (body: Record<string, unknown>) => agentServer("POST", "/runs/crons", { body });
// Once a year, so the machine's own clock never makes it due while a test runs.
const YEARLY = "0 0 1 1 *";

describe("POST /threads/{thread_id}/runs/crons", () => {
  it("answers the Cron: the thread, the assistant (a graph id resolved), the next run date, the request as payload", async () => {
    const thread = await createThread();
    const res = await createThreadCron(thread.thread_id, {
      schedule: YEARLY,
      assistant_id: "agent",
      input: { messages: [{ role: "user", content: "tick" }] },
      metadata: { job: "yearly" },
      end_time: "2100-01-01T00:00:00Z",
      multitask_strategy: null,
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      cron_id: expect.stringMatching(UUID),
      assistant_id: AGENT_DEFAULT_ID,
      thread_id: thread.thread_id,
      on_run_completed: null,
      end_time: "2100-01-01T00:00:00.000+00:00",
      schedule: YEARLY,
      created_at: expect.stringMatching(TIMESTAMP),
      updated_at: expect.stringMatching(TIMESTAMP),
      user_id: null,
      payload: {
        schedule: YEARLY,
        assistant_id: AGENT_DEFAULT_ID,
        input: { messages: [{ role: "user", content: "tick" }] },
        metadata: { job: "yearly" },
        end_time: "2100-01-01T00:00:00Z",
      },
      next_run_date: expect.stringMatching(/^\d{4}-01-01T00:00:00\.000\+00:00$/),
      metadata: { job: "yearly" },
      enabled: true,
      timezone: null,
    });
    expect(Date.parse(res.body.next_run_date)).toBeGreaterThan(Date.parse(res.body.created_at));
  });

  it("answers 404 for an unknown thread or assistant", async () => {
    const unknownThread = await createThreadCron(crypto.randomUUID(), { schedule: YEARLY, assistant_id: "agent" });
    expect(unknownThread.status).toBe(404);
    expect(unknownThread.body).toEqual({ detail: expect.stringMatching(/^Thread .* not found\.$/) });
    const thread = await createThread();
    for (const assistant_id of [crypto.randomUUID(), "no-such-graph"]) {
      const res = await createThreadCron(thread.thread_id, { schedule: YEARLY, assistant_id });
      expect(res.status).toBe(404);
      expect(res.body.detail).toContain(assistant_id);
    }
  });

  it("answers 422 for a schedule that is not cron or never fires, a context the graph refuses, and what the emulator does not do", async () => {
    const thread = await createThread();
    for (const schedule of ["every day", "61 * * * *", "0 0 30 2 *"]) {
      const res = await createThreadCron(thread.thread_id, { schedule, assistant_id: "agent" });
      expect(res.status, schedule).toBe(422);
      expect(res.body.detail).toEqual([
        expect.objectContaining({ type: "value_error", loc: ["body", "schedule"], msg: expect.stringContaining("Invalid cron schedule") }),
      ]);
    }
    const context = await createThreadCron(thread.thread_id, { schedule: YEARLY, assistant_id: "agent", context: { temperature: 1 } });
    expect(context.body.detail[0]).toMatchObject({ type: "extra_forbidden", loc: ["body", "context", "temperature"] });
    const refused = await createThreadCron(thread.thread_id, {
      schedule: YEARLY,
      assistant_id: "agent",
      webhook: "https://example.com/hook",
      interrupt_before: ["agent"],
      timezone: "Europe/Nowhere",
      end_time: "soon",
      multitask_strategy: "later",
    });
    expect(refused.body.detail.map((e: any) => [e.type, e.loc.join(".")]).sort()).toEqual(
      [
        ["datetime_parsing", "body.end_time"],
        ["value_error", "body.timezone"],
        ["value_error", "body.webhook"],
        ["value_error", "body.interrupt_before"],
        ["enum", "body.multitask_strategy"],
      ].sort(),
    );
    const missing = await createThreadCron(thread.thread_id, {});
    expect(missing.body.detail.map((e: any) => [e.type, e.loc.join(".")])).toEqual([
      ["missing", "body.schedule"],
      ["missing", "body.assistant_id"],
    ]);
  });
});

describe("POST /runs/crons", () => {
  it("answers a stateless Cron: no thread, its runs' threads deleted afterwards unless kept", async () => {
    const deleting = await createCron({ schedule: "@daily", assistant_id: "pipeline" });
    expect(deleting.status).toBe(200);
    expect(deleting.body).toMatchObject({ thread_id: null, on_run_completed: "delete", end_time: null, schedule: "@daily" });
    expect(deleting.body.next_run_date).toMatch(/T00:00:00\.000\+00:00$/);
    const keeping = await createCron({ schedule: "*/5 * * * *", assistant_id: "agent", on_run_completed: "keep", enabled: false });
    expect(keeping.body).toMatchObject({ on_run_completed: "keep", enabled: false });
    expect((await createCron({ schedule: YEARLY, assistant_id: "agent", on_run_completed: "never" })).status).toBe(422);
  });
});

describe("POST /runs/crons/search and /count, DELETE /runs/crons/{cron_id}", () => {
  it("filter by assistant (or its graph id), thread and enabled; sort; page with headers; select fields", async () => {
    const assistant = await createAssistant({ graph_id: "agent", metadata: freshTag() });
    const thread = await createThread();
    const a = (await createThreadCron(thread.thread_id, { schedule: YEARLY, assistant_id: assistant.assistant_id })).body;
    await advanceClock(10);
    const b = (await createCron({ schedule: "@monthly", assistant_id: assistant.assistant_id })).body;
    await advanceClock(10);
    const c = (await createCron({ schedule: "@weekly", assistant_id: assistant.assistant_id, enabled: false })).body;

    const search = (body: Record<string, unknown>) => agentServer("POST", "/runs/crons/search", { body: { assistant_id: assistant.assistant_id, ...body } });
    const all = await search({});
    expect(all.status).toBe(200);
    expect(all.body.map((x: any) => x.cron_id)).toEqual([c.cron_id, b.cron_id, a.cron_id]);
    expect(all.body[2]).toEqual(a);
    expect(all.headers.get("x-pagination-total")).toBe("3");
    expect((await search({ thread_id: thread.thread_id })).body.map((x: any) => x.cron_id)).toEqual([a.cron_id]);
    expect((await search({ enabled: false })).body.map((x: any) => x.cron_id)).toEqual([c.cron_id]);
    const page = await search({ limit: 1, offset: 1, sort_order: "asc" });
    expect(page.body.map((x: any) => x.cron_id)).toEqual([b.cron_id]);
    expect(page.headers.get("x-pagination-next")).toBe("2");
    const byNextRun = await search({ sort_by: "next_run_date", sort_order: "asc" });
    expect(byNextRun.body.map((x: any) => x.next_run_date)).toEqual(all.body.map((x: any) => x.next_run_date).sort());
    expect((await search({ select: ["cron_id", "schedule"], thread_id: thread.thread_id })).body).toEqual([{ cron_id: a.cron_id, schedule: YEARLY }]);

    expect(await agentServer("POST", "/runs/crons/count", { body: { assistant_id: assistant.assistant_id } })).toMatchObject({ status: 200, body: 3 });
    expect((await agentServer("POST", "/runs/crons/count", { body: { assistant_id: assistant.assistant_id, thread_id: thread.thread_id } })).body).toBe(1);
    expect((await agentServer("POST", "/runs/crons/count", { body: { thread_id: crypto.randomUUID() } })).body).toBe(0);
    expect((await agentServer("POST", "/runs/crons/search", { body: { assistant_id: "pipeline", thread_id: thread.thread_id } })).body).toEqual([]);

    const deleted = await agentServer("DELETE", `/runs/crons/${b.cron_id}`);
    expect(deleted).toMatchObject({ status: 200, body: {} });
    expect((await search({})).body.map((x: any) => x.cron_id)).toEqual([c.cron_id, a.cron_id]);
    const again = await agentServer("DELETE", `/runs/crons/${b.cron_id}`);
    expect(again.status).toBe(404);
    expect(again.body).toEqual({ detail: `Cron ${b.cron_id} not found.` });
  });

  it("drop the crons of a deleted thread or assistant, as the real server's foreign keys cascade", async () => {
    const assistant = await createAssistant({ graph_id: "agent" });
    const thread = await createThread();
    await createThreadCron(thread.thread_id, { schedule: YEARLY, assistant_id: "agent" });
    await createCron({ schedule: YEARLY, assistant_id: assistant.assistant_id });
    await agentServer("DELETE", `/threads/${thread.thread_id}`);
    await agentServer("DELETE", `/assistants/${assistant.assistant_id}`);
    expect((await agentServer("POST", "/runs/crons/count", { body: { thread_id: thread.thread_id } })).body).toBe(0);
    expect((await agentServer("POST", "/runs/crons/count", { body: { assistant_id: assistant.assistant_id } })).body).toBe(0);
  });

  it("answer 422 for bad filters, bounds and ids", async () => {
    const res = await agentServer("POST", "/runs/crons/search", { body: { thread_id: "x", limit: 0, sort_by: "schedule", select: ["paused"] } });
    expect(res.body.detail.map((e: any) => [e.type, e.loc.join(".")])).toEqual([
      ["uuid_parsing", "body.thread_id"],
      ["greater_than_equal", "body.limit"],
      ["enum", "body.sort_by"],
      ["enum", "body.select.0"],
    ]);
    expect((await agentServer("POST", "/runs/crons/count", { body: { assistant_id: "not-a-graph" } })).body.detail[0]).toMatchObject({
      type: "uuid_parsing",
      loc: ["body", "assistant_id"],
    });
    expect((await agentServer("DELETE", "/runs/crons/x")).body.detail[0]).toMatchObject({ type: "uuid_parsing", loc: ["path", "cron_id"] });
  });
});

/** Moves the object's clock just past the cron's next run date. */
async function passNextRun(cron: { created_at: string; next_run_date: string }): Promise<void> {
  await advanceClock(Date.parse(cron.next_run_date) - Date.parse(cron.created_at) + 1000);
}

describe("cron schedules", () => {
  it("hand out each due cron once, moved on to its next time; disabled and ended crons are not due", async () => {
    const thread = await createThread();
    const due = (await createThreadCron(thread.thread_id, { schedule: YEARLY, assistant_id: "agent", input: { messages: ["tick"] } })).body;
    const disabled = (await createThreadCron(thread.thread_id, { schedule: YEARLY, assistant_id: "agent", enabled: false })).body;
    await passNextRun(due);

    const claimed = await runInDurableObject(stateObject(), (state) => [state.crons().claimDue(), state.crons().claimDue()]);
    const mine = claimed[0]!.filter((c) => c.thread_id === thread.thread_id);
    expect(mine).toEqual([
      { cron_id: due.cron_id, thread_id: thread.thread_id, on_run_completed: null, payload: expect.objectContaining({ input: { messages: ["tick"] } }) },
    ]);
    expect(claimed[1]!.filter((c) => c.thread_id === thread.thread_id)).toEqual([]);
    const [after] = (await agentServer("POST", "/runs/crons/search", { body: { thread_id: thread.thread_id, enabled: true } })).body;
    expect(Date.parse(after.next_run_date) - Date.parse(due.next_run_date)).toBeGreaterThanOrEqual(365 * 24 * 3600 * 1000);
    expect(disabled.enabled).toBe(false);
  });

  it("fire a thread cron's run when the object's alarm rings: a background run on the thread, through the emulator's API", async () => {
    const thread = await createThread();
    const cron = (
      await createThreadCron(thread.thread_id, {
        schedule: YEARLY,
        assistant_id: "agent",
        input: { messages: [{ role: "user", content: "tick" }] },
        metadata: { job: "new-year" },
      })
    ).body;
    await passNextRun(cron);
    expect(await runDurableObjectAlarm(stateOf(agentServerEnv))).toBe(true);

    const runs = await agentServer("GET", `/threads/${thread.thread_id}/runs`);
    expect(runs.status).toBe(200);
    expect(runs.body).toEqual([
      expect.objectContaining({ thread_id: thread.thread_id, assistant_id: AGENT_DEFAULT_ID, metadata: expect.objectContaining({ job: "new-year" }) }),
    ]);
    const result = await agentServer("GET", `/threads/${thread.thread_id}/runs/${runs.body[0].run_id}/join`);
    expect(result.body.messages.at(-1).content).toBe("you said: tick");
    await agentServer("DELETE", `/runs/crons/${cron.cron_id}`);
  });

  it("fire a stateless cron's run on a new thread, kept when the cron says keep", async () => {
    const assistant = await createAssistant({ graph_id: "agent", context: { system_prompt: "Cron." } });
    const cron = (await createCron({ schedule: YEARLY, assistant_id: assistant.assistant_id, on_run_completed: "keep", input: { messages: ["tock"] } })).body;
    await passNextRun(cron);
    expect(await runDurableObjectAlarm(stateOf(agentServerEnv))).toBe(true);

    // A stateless run's thread is stamped with its assistant (and the cron made exactly one).
    const threads = await agentServer("POST", "/threads/search", { body: { metadata: { assistant_id: assistant.assistant_id } } });
    expect(threads.body).toHaveLength(1);
    const [run] = (await agentServer("GET", `/threads/${threads.body[0].thread_id}/runs`)).body;
    const result = await agentServer("GET", `/threads/${run.thread_id}/runs/${run.run_id}/join`);
    expect(result.body.messages.at(-1).content).toBe("Cron. | you said: tock");
    await agentServer("DELETE", `/runs/crons/${cron.cron_id}`);
  });
});
