// POST /threads/search, POST /threads/count, PATCH /threads/{thread_id}.
import { describe, expect, it } from "vitest";
import { agentServer, createThread, freshTag } from "./support.ts";

describe("POST /threads/search", () => {
  it("filters by metadata, ids and status, newest first, paged with pagination headers", async () => {
    const tag = freshTag();
    const a = await createThread({ metadata: { ...tag, n: 1 } });
    const b = await createThread({ metadata: { ...tag, n: 2 } });
    const c = await createThread({ metadata: { ...tag, n: 3, extra: { deep: true } } });

    const all = await agentServer("POST", "/threads/search", { body: { metadata: tag } });
    expect(all.status).toBe(200);
    expect(all.body.map((t: any) => t.thread_id)).toEqual([c.thread_id, b.thread_id, a.thread_id]);
    expect(all.headers.get("x-pagination-total")).toBe("3");
    expect(all.headers.get("x-pagination-next")).toBeNull();

    const page = await agentServer("POST", "/threads/search", { body: { metadata: tag, limit: 2, offset: 0, sort_order: "asc" } });
    expect(page.body.map((t: any) => t.thread_id)).toEqual([a.thread_id, b.thread_id]);
    expect(page.headers.get("x-pagination-next")).toBe("2");

    const nested = await agentServer("POST", "/threads/search", { body: { metadata: { ...tag, extra: { deep: true } } } });
    expect(nested.body.map((t: any) => t.thread_id)).toEqual([c.thread_id]);
    const byIds = await agentServer("POST", "/threads/search", { body: { ids: [a.thread_id, c.thread_id.toUpperCase()], metadata: tag } });
    expect(byIds.body.map((t: any) => t.thread_id)).toEqual([c.thread_id, a.thread_id]);
    expect((await agentServer("POST", "/threads/search", { body: { metadata: tag, status: "busy" } })).body).toEqual([]);
    expect((await agentServer("POST", "/threads/search", { body: { metadata: tag, status: "idle" } })).body).toHaveLength(3);
  });

  it("answers each thread as GET /threads/{thread_id} does, or only the fields selected", async () => {
    const tag = freshTag();
    const thread = await createThread({ metadata: tag });
    const found = await agentServer("POST", "/threads/search", { body: { metadata: tag } });
    expect(found.body).toEqual([(await agentServer("GET", `/threads/${thread.thread_id}`)).body]);
    const selected = await agentServer("POST", "/threads/search", { body: { metadata: tag, select: ["thread_id", "status"] } });
    expect(selected.body).toEqual([{ thread_id: thread.thread_id, status: "idle" }]);
  });

  it("filters by values (containment) and sorts by thread_id", async () => {
    const tag = freshTag();
    const threads = [await createThread({ metadata: tag }), await createThread({ metadata: tag })];
    expect((await agentServer("POST", "/threads/search", { body: { metadata: tag, values: { messages: [] } } })).body).toEqual([]);
    const sorted = await agentServer("POST", "/threads/search", { body: { metadata: tag, sort_by: "thread_id", sort_order: "asc" } });
    expect(sorted.body.map((t: any) => t.thread_id)).toEqual(threads.map((t) => t.thread_id).sort());
  });

  it("takes no body as {}, and answers 422 for bad bounds, enums and ids", async () => {
    expect((await agentServer("POST", "/threads/search")).status).toBe(200);
    const res = await agentServer("POST", "/threads/search", {
      body: { limit: 0, offset: -1, status: "sleeping", sort_by: "name", ids: ["x"], select: ["nope"] },
    });
    expect(res.status).toBe(422);
    expect(res.body.detail.map((e: any) => [e.type, e.loc.join(".")])).toEqual([
      ["enum", "body.status"],
      ["uuid_parsing", "body.ids.0"],
      ["greater_than_equal", "body.limit"],
      ["greater_than_equal", "body.offset"],
      ["enum", "body.sort_by"],
      ["enum", "body.select.0"],
    ]);
  });
});

describe("POST /threads/count", () => {
  it("counts the threads matching metadata, values and status", async () => {
    const tag = freshTag();
    await createThread({ metadata: tag });
    await createThread({ metadata: { ...tag, kind: "x" } });
    expect(await agentServer("POST", "/threads/count", { body: { metadata: tag } })).toMatchObject({ status: 200, body: 2 });
    expect((await agentServer("POST", "/threads/count", { body: { metadata: { ...tag, kind: "x" }, status: "idle" } })).body).toBe(1);
    expect((await agentServer("POST", "/threads/count", { body: { metadata: tag, status: "error" } })).body).toBe(0);
    expect((await agentServer("POST", "/threads/count", { body: { metadata: "x" } })).status).toBe(422);
  });
});

describe("PATCH /threads/{thread_id}", () => {
  it("merges metadata key by key and stamps updated_at", async () => {
    const thread = await createThread({ metadata: { keep: 1, change: "a" } });
    const res = await agentServer("PATCH", `/threads/${thread.thread_id}`, {
      body: { metadata: { change: "b", added: true }, ttl: { strategy: "delete", ttl: 60 } },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ thread_id: thread.thread_id, metadata: { keep: 1, change: "b", added: true }, created_at: thread.created_at });
    expect(res.body.updated_at >= thread.updated_at).toBe(true);
    expect((await agentServer("GET", `/threads/${thread.thread_id}`)).body).toEqual(res.body);
    expect((await agentServer("PATCH", `/threads/${thread.thread_id}`)).body.metadata).toEqual(res.body.metadata);
  });

  it("answers 404 for an unknown thread and 422 for a bad id, metadata or ttl", async () => {
    const missing = await agentServer("PATCH", `/threads/${crypto.randomUUID()}`, { body: { metadata: {} } });
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ detail: expect.stringMatching(/^Thread .* not found\.$/) });
    expect((await agentServer("PATCH", "/threads/nope", { body: {} })).body.detail[0]).toMatchObject({ type: "uuid_parsing", loc: ["path", "thread_id"] });
    const bad = await agentServer("PATCH", `/threads/${crypto.randomUUID()}`, { body: { metadata: [], ttl: { ttl: "x" } } });
    expect(bad.body.detail.map((e: any) => [e.type, e.loc.join(".")])).toEqual([
      ["dict_type", "body.metadata"],
      ["float_type", "body.ttl.ttl"],
    ]);
  });
});
