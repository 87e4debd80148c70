// What the agent server's 2026 description adds or changes (issue 31, item 3), besides protocol v2:
// POST /threads/prune, GET /threads/{thread_id}/storage, GET /runs/crons/{cron_id}, GET /docs (with
// the /openapi.json it reads), `?include=ttl`, `?refresh_ttl=` read as a bool, the `keep_latest`
// TTL strategy, `on_disconnect` defaulting to "continue", and `?subgraphs=` gone from
// POST /threads/{thread_id}/state/checkpoint. Every answer is held to the 2026 document (support.ts).
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { advanceClock, MINUTE_MS, stateObject } from "./clock.ts";
import { join, say } from "./run-support.ts";
import { AGENT_SERVER_URL, agentServer, createThread, freshCaller, readEvents, send } from "./support.ts";

/** A thread with one finished run of the agent graph: checkpoints to count and prune. */
async function threadWithRuns(runs = 1): Promise<string> {
  const thread = await createThread();
  for (let i = 0; i < runs; i++) {
    const run = (await agentServer("POST", `/threads/${thread.thread_id}/runs`, { body: { assistant_id: "agent", input: say(`hello ${i}`) } })).body;
    await join(thread.thread_id, run.run_id);
  }
  return thread.thread_id;
}

const historyOf = async (threadId: string) => (await agentServer("POST", `/threads/${threadId}/history`, { body: { limit: 100 } })).body as any[];

describe("POST /threads/prune", () => {
  it("delete (the default): the threads are gone, with their runs; ids of no thread are not counted", async () => {
    const a = await threadWithRuns();
    const b = await threadWithRuns();
    const kept = await threadWithRuns();
    const res = await agentServer("POST", "/threads/prune", { body: { thread_ids: [a, b, crypto.randomUUID()] } });
    expect(res).toMatchObject({ status: 200, body: { pruned_count: 2 } });
    expect((await agentServer("GET", `/threads/${a}`)).status).toBe(404);
    expect((await agentServer("GET", `/threads/${b}`)).status).toBe(404);
    expect((await agentServer("GET", `/threads/${kept}`)).status).toBe(200);
  });

  it("keep_latest: each thread keeps its latest state and that checkpoint only", async () => {
    const threadId = await threadWithRuns(2);
    const before = await agentServer("GET", `/threads/${threadId}/state`);
    expect((await historyOf(threadId)).length).toBeGreaterThan(1);
    const res = await agentServer("POST", "/threads/prune", { body: { thread_ids: [threadId], strategy: "keep_latest" } });
    expect(res).toMatchObject({ status: 200, body: { pruned_count: 1 } });
    const history = await historyOf(threadId);
    expect(history).toHaveLength(1);
    expect(history[0].checkpoint.checkpoint_id).toBe(before.body.checkpoint.checkpoint_id);
    expect((await agentServer("GET", `/threads/${threadId}/state`)).body.values).toEqual(before.body.values);
  });

  it("answers 422 for a body the document refuses, pruning nothing", async () => {
    const threadId = await threadWithRuns();
    const missing = await agentServer("POST", "/threads/prune", { body: {} });
    expect(missing.body.detail[0]).toMatchObject({ type: "missing", loc: ["body", "thread_ids"] });
    const notUuid = await agentServer("POST", "/threads/prune", { body: { thread_ids: [threadId, "x"] } });
    expect(notUuid.body.detail[0]).toMatchObject({ type: "uuid_parsing", loc: ["body", "thread_ids", 1] });
    const strategy = await agentServer("POST", "/threads/prune", { body: { thread_ids: [threadId], strategy: "all" } });
    expect(strategy.body.detail[0]).toMatchObject({ type: "enum", loc: ["body", "strategy"] });
    expect((await agentServer("GET", `/threads/${threadId}`)).status).toBe(200);
  });
});

describe("GET /threads/{thread_id}/storage", () => {
  it("counts the thread's checkpoints, channel versions and their bytes, and grows with each run", async () => {
    const threadId = await threadWithRuns();
    const first = await agentServer("GET", `/threads/${threadId}/storage`);
    expect(first.status).toBe(200);
    const storage = first.body;
    expect(storage.thread_id).toBe(threadId);
    expect(storage.checkpoints.count).toBe((await historyOf(threadId)).length);
    expect(storage.checkpoints.bytes).toBeGreaterThan(0);
    expect(Object.keys(storage.channel_values.by_channel)).toContain("messages");
    const byChannel = Object.values(storage.channel_values.by_channel) as { versions: number; bytes: number }[];
    expect(storage.channel_values.count).toBe(byChannel.reduce((sum, c) => sum + c.versions, 0));
    expect(storage.channel_values.bytes).toBe(byChannel.reduce((sum, c) => sum + c.bytes, 0));
    expect(storage.total_bytes).toBe(storage.checkpoints.bytes + storage.channel_values.bytes + storage.pending_writes.bytes);
    expect(storage.pending_writes).toEqual({ count: 0, bytes: 0 });

    const run = (await agentServer("POST", `/threads/${threadId}/runs`, { body: { assistant_id: "agent", input: say("again") } })).body;
    await join(threadId, run.run_id);
    const second = (await agentServer("GET", `/threads/${threadId}/storage`)).body;
    expect(second.checkpoints.count).toBeGreaterThan(storage.checkpoints.count);
    expect(second.channel_values.by_channel.messages.versions).toBeGreaterThan(storage.channel_values.by_channel.messages.versions);
    expect(second.total_bytes).toBeGreaterThan(storage.total_bytes);
  });

  it("an empty thread occupies nothing; an unknown thread is 404, an id that is not one 422", async () => {
    const thread = await createThread();
    expect((await agentServer("GET", `/threads/${thread.thread_id}/storage`)).body).toEqual({
      thread_id: thread.thread_id,
      total_bytes: 0,
      checkpoints: { count: 0, bytes: 0 },
      channel_values: { count: 0, bytes: 0, by_channel: {} },
      pending_writes: { count: 0, bytes: 0 },
    });
    expect((await agentServer("GET", `/threads/${crypto.randomUUID()}/storage`)).status).toBe(404);
    expect((await agentServer("GET", "/threads/x/storage")).body.detail[0]).toMatchObject({ type: "uuid_parsing", loc: ["path", "thread_id"] });
  });
});

describe("GET /threads/{thread_id}?include=ttl and the keep_latest TTL", () => {
  it("shows the TTL only when asked for and only when the thread has one", async () => {
    const withTtl = await createThread({ ttl: { strategy: "keep_latest", ttl: 90 } });
    const shown = (await agentServer("GET", `/threads/${withTtl.thread_id}?include=ttl`)).body;
    expect(shown.ttl).toMatchObject({ strategy: "keep_latest", ttl_minutes: 90, expires_at: expect.any(String) });
    expect(Date.parse(shown.ttl.expires_at)).toBeGreaterThan(Date.now());
    expect((await agentServer("GET", `/threads/${withTtl.thread_id}`)).body).not.toHaveProperty("ttl");
    const without = await createThread();
    expect((await agentServer("GET", `/threads/${without.thread_id}?include=ttl`)).body).not.toHaveProperty("ttl");
  });

  it("keep_latest: when the TTL runs out the thread stays, pruned to its latest checkpoint", async () => {
    const threadId = await threadWithRuns(2);
    expect((await agentServer("PATCH", `/threads/${threadId}`, { body: { ttl: { strategy: "keep_latest", ttl: 1 } } })).status).toBe(200);
    const latest = (await agentServer("GET", `/threads/${threadId}/state`)).body.checkpoint.checkpoint_id;
    await advanceClock(2 * MINUTE_MS);
    expect(await runDurableObjectAlarm(stateObject())).toBe(true);
    expect((await agentServer("GET", `/threads/${threadId}`)).status).toBe(200);
    const history = await historyOf(threadId);
    expect(history.map((state) => state.checkpoint.checkpoint_id)).toEqual([latest]);
    expect((await agentServer("GET", `/threads/${threadId}?include=ttl`)).body).not.toHaveProperty("ttl");
  });
});

describe("GET /runs/crons/{cron_id}", () => {
  it("answers the cron as created and updated; 404 for no cron, 422 for an id that is not one", async () => {
    const thread = await createThread();
    const created = (await agentServer("POST", `/threads/${thread.thread_id}/runs/crons`, { body: { schedule: "0 0 1 1 *", assistant_id: "agent" } })).body;
    expect((await agentServer("GET", `/runs/crons/${created.cron_id}`)).body).toEqual(created);
    const updated = (await agentServer("PATCH", `/runs/crons/${created.cron_id}`, { body: { enabled: false } })).body;
    expect((await agentServer("GET", `/runs/crons/${created.cron_id}`)).body).toEqual(updated);
    expect((await agentServer("GET", `/runs/crons/${crypto.randomUUID()}`)).status).toBe(404);
    expect((await agentServer("GET", "/runs/crons/x")).body.detail[0]).toMatchObject({ type: "uuid_parsing", loc: ["path", "cron_id"] });
  });
});

describe("GET /docs and /openapi.json", () => {
  it("serves FastAPI's docs page, reading the description served beside it: the 2026 document", async () => {
    const page = await send("GET", "/docs");
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toMatch(/^text\/html/);
    const html = await page.text();
    expect(html).toContain("SwaggerUIBundle");
    expect(html).toContain("url: 'openapi.json'");
    // Not in the document, so fetched without the contract check.
    const res = await exports.default.fetch(new URL("openapi.json", `${AGENT_SERVER_URL}/docs`), { headers: freshCaller() });
    expect(res.status).toBe(200);
    const document = (await res.json()) as { paths: Record<string, object> };
    expect(document.paths).toHaveProperty(["/threads/prune"]);
    expect(document.paths).toHaveProperty(["/threads/{thread_id}/commands"]);
  });
});

describe("the 2026 request schemas", () => {
  it("GET /store/items reads refresh_ttl as a bool: anything else is 422", async () => {
    const bad = await agentServer("GET", "/store/items?namespace=a&key=k&refresh_ttl=not-a-bool");
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0]).toMatchObject({ type: "bool_parsing", loc: ["query", "refresh_ttl"] });
    expect((await agentServer("GET", "/store/items?namespace=a&key=k&refresh_ttl=false")).status).toBe(200);
  });

  it("POST /threads/{thread_id}/state/checkpoint no longer takes ?subgraphs= (an older client's is ignored); the body's still is", async () => {
    const threadId = await threadWithRuns();
    const checkpoint = (await agentServer("GET", `/threads/${threadId}/state`)).body.checkpoint;
    const old = await agentServer("POST", `/threads/${threadId}/state/checkpoint?subgraphs=not-a-bool`, { body: { checkpoint } });
    expect(old.status).toBe(200);
    expect(old.body.checkpoint.checkpoint_id).toBe(checkpoint.checkpoint_id);
    const body = await agentServer("POST", `/threads/${threadId}/state/checkpoint`, { body: { checkpoint, subgraphs: "maybe" } });
    expect(body.body.detail[0]).toMatchObject({ loc: ["body", "subgraphs"] });
  });

  it.each([
    ["POST /threads/{thread_id}/runs/stream", "stream"],
    ["POST /runs/stream", "stream"],
    ["POST /threads/{thread_id}/runs/wait", "wait"],
    ["POST /runs/wait", "wait"],
  ])("%s: on_disconnect defaults to continue (RunCreateStreaming*)", async (operation) => {
    const thread = await createThread();
    const path = operation.split(" ")[1]!.replace("{thread_id}", thread.thread_id);
    const res = await send("POST", path, { body: { assistant_id: "agent", input: say("stay"), on_completion: "keep" } });
    expect(res.status).toBe(200);
    const runId = res.headers.get("content-location")!.split("/").at(-1)!;
    if (res.headers.get("content-type")?.startsWith("text/event-stream")) await readEvents(res);
    else await res.text();
    const stored = await runInDurableObject(stateObject(), (_, ctx: DurableObjectState) =>
      ctx.storage.sql.exec<{ on_disconnect: string }>("SELECT on_disconnect FROM run_progress WHERE run_id = ?", runId).one(),
    );
    expect(stored.on_disconnect).toBe("continue");
  });
});

describe("cron bodies read as the 2026 schemas type them", () => {
  const WRONG = {
    stream_mode: ["values", "everything"],
    stream_subgraphs: "sometimes",
    stream_resumable: "maybe",
    durability: "forever",
    timezone: "Mars/Olympus_Mons",
  };
  const SCHEDULE = { schedule: "0 0 1 1 *", assistant_id: "agent" };

  it.each(Object.entries(WRONG))("%s: a wrong one is 422 on every cron body, and nothing is stored or changed", async (field, value) => {
    const thread = await createThread();
    const cron = (await agentServer("POST", `/threads/${thread.thread_id}/runs/crons`, { body: SCHEDULE })).body;
    const cronsBefore = (await agentServer("POST", "/runs/crons/count", { body: {} })).body;
    for (const [method, path, body] of [
      ["POST", "/runs/crons", { ...SCHEDULE, [field]: value }],
      ["POST", `/threads/${thread.thread_id}/runs/crons`, { ...SCHEDULE, [field]: value }],
      ["PATCH", `/runs/crons/${cron.cron_id}`, { [field]: value }],
    ] as const) {
      const res = await agentServer(method, path, { body });
      expect(res.status, `${method} ${path}`).toBe(422);
      expect(res.body.detail[0].loc.slice(0, 2), `${method} ${path}`).toEqual(["body", field]);
    }
    expect((await agentServer("POST", "/runs/crons/count", { body: {} })).body).toBe(cronsBefore);
    expect((await agentServer("GET", `/runs/crons/${cron.cron_id}`)).body).toEqual(cron);
  });

  it("the right ones are taken, kept in the payload its runs are made from, and a time zone moves the schedule", async () => {
    const created = await agentServer("POST", "/runs/crons", {
      body: {
        schedule: "0 9 * * *",
        assistant_id: "agent",
        stream_mode: "updates",
        stream_subgraphs: true,
        stream_resumable: false,
        durability: "sync",
        timezone: "America/New_York",
      },
    });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ timezone: "America/New_York", payload: { stream_mode: "updates", durability: "sync", timezone: "America/New_York" } });
    // 09:00 in New York is 13:00 or 14:00 UTC, as daylight saving time has it.
    expect([13, 14]).toContain(new Date(created.body.next_run_date).getUTCHours());
    const utc = (await agentServer("PATCH", `/runs/crons/${created.body.cron_id}`, { body: { timezone: "UTC", durability: "exit" } })).body;
    expect(new Date(utc.next_run_date).getUTCHours()).toBe(9);
    expect(utc).toMatchObject({ timezone: "UTC", payload: { durability: "exit" } });
  });

  it("PATCH end_time: a date-time sets it, null clears it, absent leaves it", async () => {
    const thread = await createThread();
    const cron = (await agentServer("POST", `/threads/${thread.thread_id}/runs/crons`, { body: SCHEDULE })).body;
    expect(cron.end_time).toBeNull();
    const set = (await agentServer("PATCH", `/runs/crons/${cron.cron_id}`, { body: { end_time: "2100-06-01T00:00:00Z" } })).body;
    expect(set.end_time).toBe("2100-06-01T00:00:00.000+00:00");
    expect((await agentServer("PATCH", `/runs/crons/${cron.cron_id}`, { body: { enabled: true } })).body.end_time).toBe(set.end_time);
    expect((await agentServer("PATCH", `/runs/crons/${cron.cron_id}`, { body: { end_time: null } })).body.end_time).toBeNull();
    const wrong = await agentServer("PATCH", `/runs/crons/${cron.cron_id}`, { body: { end_time: 12 } });
    expect(wrong.body.detail[0]).toMatchObject({ loc: ["body", "end_time"] });
  });

  it("search and count filter by metadata; select takes timezone and enabled", async () => {
    const tag = { job: crypto.randomUUID() };
    const cron = (await agentServer("POST", "/runs/crons", { body: { ...SCHEDULE, metadata: tag } })).body;
    await agentServer("POST", "/runs/crons", { body: SCHEDULE });
    const found = await agentServer("POST", "/runs/crons/search", { body: { metadata: tag, select: ["cron_id", "timezone", "enabled"] } });
    expect(found.body).toEqual([{ cron_id: cron.cron_id, timezone: null, enabled: true }]);
    expect((await agentServer("POST", "/runs/crons/count", { body: { metadata: tag } })).body).toBe(1);
  });
});

describe("POST /threads/search: the 2026 fields", () => {
  it("state_updated_at: each thread's, sortable and selectable; extract: aliases of paths inside each thread", async () => {
    const tag = { suite: crypto.randomUUID() };
    const empty = await createThread({ metadata: { ...tag, user: { name: "ada" } } });
    expect(empty.state_updated_at).toBe(empty.created_at);
    const ran = await createThread({ metadata: tag });
    const run = (await agentServer("POST", `/threads/${ran.thread_id}/runs`, { body: { assistant_id: "agent", input: say("hi") } })).body;
    await join(ran.thread_id, run.run_id);
    const state = (await agentServer("GET", `/threads/${ran.thread_id}/state`)).body;
    expect((await agentServer("GET", `/threads/${ran.thread_id}`)).body.state_updated_at).toBe(state.created_at);

    const search = await agentServer("POST", "/threads/search", {
      body: {
        metadata: tag,
        sort_by: "state_updated_at",
        sort_order: "asc",
        select: ["thread_id", "state_updated_at"],
        extract: { last: "values.messages[-1].content", who: "metadata.user.name" },
      },
    });
    expect(search.status).toBe(200);
    expect(search.body).toEqual([
      { thread_id: empty.thread_id, state_updated_at: empty.state_updated_at, extracted: { last: null, who: "ada" } },
      { thread_id: ran.thread_id, state_updated_at: state.created_at, extracted: { last: "you said: hi", who: null } },
    ]);
  });

  it("refuses an extract path outside the thread's JSON columns, and more than 10 aliases", async () => {
    const outside = await agentServer("POST", "/threads/search", { body: { extract: { id: "thread_id" } } });
    expect(outside.body.detail[0]).toMatchObject({ type: "value_error", loc: ["body", "extract", "id"] });
    const many = Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`a${i}`, "values"]));
    expect((await agentServer("POST", "/threads/search", { body: { extract: many } })).body.detail[0]).toMatchObject({
      type: "value_error",
      loc: ["body", "extract"],
    });
  });
});
