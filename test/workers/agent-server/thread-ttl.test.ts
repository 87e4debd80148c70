// Thread TTL: `ttl` on POST /threads and PATCH /threads/{thread_id} (strategy `delete`, minutes
// from now). The state object's alarm, shared with the run engine and the crons (alarms.ts), rings
// at the earliest expiry and deletes every expired thread with its runs, checkpoints and events.
// Time passes on the object's clock (clock.ts), never by waiting; tests in this file share it, so
// each relies only on time having passed.
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { advanceClock, MINUTE_MS, stateObject } from "./clock.ts";
import { agentServer, createThread, officialClient } from "./support.ts";
import { join, say } from "./run-support.ts";

const state = () => stateObject();
const exists = async (threadId: string) => (await agentServer("GET", `/threads/${threadId}`)).status === 200;

/** Rows the thread still has in each of its tables. */
const rowsOf = (threadId: string) =>
  runInDurableObject(state(), (_, ctx: DurableObjectState) =>
    Object.fromEntries(
      ["runs", "checkpoints", "run_events", "thread_ttls"].map((table) => [
        table,
        ctx.storage.sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM ${table} WHERE thread_id = ?`, threadId).one().n,
      ]),
    ),
  );

describe("thread TTL", () => {
  it("sweeps a thread whose TTL ran out, with its runs, checkpoints and events; threads without one, or with time left, stay", async () => {
    const swept = await createThread({ ttl: { strategy: "delete", ttl: 1 } });
    const run = (await agentServer("POST", `/threads/${swept.thread_id}/runs`, { body: { assistant_id: "agent", input: say("hi") } })).body;
    await join(swept.thread_id, run.run_id);
    expect(await rowsOf(swept.thread_id)).toMatchObject({ runs: 1, thread_ttls: 1 });
    expect((await rowsOf(swept.thread_id)).run_events).toBeGreaterThan(0);
    const forever = await createThread();
    const later = await createThread({ ttl: { ttl: 600 } });

    await advanceClock(2 * MINUTE_MS);
    expect(await runDurableObjectAlarm(state())).toBe(true);

    expect(await exists(swept.thread_id)).toBe(false);
    expect((await agentServer("GET", `/threads/${swept.thread_id}/runs/${run.run_id}`)).status).toBe(404);
    expect(await rowsOf(swept.thread_id)).toEqual({ runs: 0, checkpoints: 0, run_events: 0, thread_ttls: 0 });
    expect(await exists(forever.thread_id)).toBe(true);
    expect(await exists(later.thread_id)).toBe(true);
  });

  it("runs from the PATCH that set it last", async () => {
    const thread = await createThread({ ttl: { ttl: 1 } });
    await advanceClock(MINUTE_MS / 2);
    expect((await agentServer("PATCH", `/threads/${thread.thread_id}`, { body: { ttl: { strategy: "delete", ttl: 1 } } })).status).toBe(200);
    await advanceClock((3 * MINUTE_MS) / 4);
    await runDurableObjectAlarm(state());
    // 75 s after creation, but 45 s after the PATCH: not yet.
    expect(await exists(thread.thread_id)).toBe(true);
    await advanceClock(MINUTE_MS / 2);
    expect(await runDurableObjectAlarm(state())).toBe(true);
    expect(await exists(thread.thread_id)).toBe(false);
  });

  it("takes the official client's ttl (minutes as a number) on create and update", async () => {
    const client = officialClient();
    const created = await client.threads.create({ ttl: 5 });
    const patched = await client.threads.create();
    await client.threads.update(patched.thread_id, { ttl: 5 });
    await advanceClock(6 * MINUTE_MS);
    await runDurableObjectAlarm(state());
    await expect(client.threads.get(created.thread_id)).rejects.toThrow(/404/);
    await expect(client.threads.get(patched.thread_id)).rejects.toThrow(/404/);
  });

  it("shares the object's one alarm: it is set for the earliest thread expiry while runs and crons need nothing sooner", async () => {
    const thread = await createThread({ ttl: { ttl: 3 } });
    await agentServer("POST", `/threads/${thread.thread_id}/runs/crons`, { body: { schedule: "0 0 1 1 *", assistant_id: "agent" } });
    const { alarm, expiresAt, machine } = await runInDurableObject(state(), async (s, ctx: DurableObjectState) => ({
      alarm: await ctx.storage.getAlarm(),
      expiresAt: ctx.storage.sql.exec<{ at: number }>("SELECT MIN(expires_at) AS at FROM thread_ttls").one().at,
      machine: s.clock.machineTime(0),
    }));
    expect(alarm).toBe(expiresAt + machine);
  });

  it("refuses a ttl that is not one (422), storing nothing", async () => {
    const zero = await agentServer("POST", "/threads", { body: { ttl: { ttl: 0 } } });
    expect(zero.status).toBe(422);
    expect(zero.body.detail[0]).toMatchObject({ type: "value_error", loc: ["body", "ttl", "ttl"] });
    const strategy = await agentServer("POST", "/threads", { body: { ttl: { strategy: "keep", ttl: 5 } } });
    expect(strategy.body.detail[0]).toMatchObject({ type: "enum", loc: ["body", "ttl", "strategy"] });
    const thread = await createThread();
    const patch = await agentServer("PATCH", `/threads/${thread.thread_id}`, { body: { ttl: { ttl: "soon" } } });
    expect(patch.body.detail[0]).toMatchObject({ loc: ["body", "ttl", "ttl"] });
    expect(await rowsOf(thread.thread_id)).toMatchObject({ thread_ttls: 0 });
  });
});
