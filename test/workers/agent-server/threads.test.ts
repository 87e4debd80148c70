// /threads end to end through the gateway.
import { describe, expect, it } from "vitest";
import { agentServer, createThread, TIMESTAMP, UUID } from "./support.ts";

describe("POST /threads", () => {
  it("answers 200 with an idle thread and empty values", async () => {
    const res = await agentServer("POST", "/threads", { body: {} });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      thread_id: expect.stringMatching(UUID),
      created_at: expect.stringMatching(TIMESTAMP),
      updated_at: expect.stringMatching(TIMESTAMP),
      // No checkpoint yet: the state last changed when the thread was made.
      state_updated_at: res.body.created_at,
      metadata: {},
      status: "idle",
      config: {},
      values: {},
      interrupts: {},
    });
    expect((await agentServer("GET", `/threads/${res.body.thread_id}`)).body).toEqual(res.body);
  });

  it("takes no body at all, a given thread_id and metadata", async () => {
    expect((await agentServer("POST", "/threads")).status).toBe(200);
    const id = crypto.randomUUID();
    const res = await agentServer("POST", "/threads", { body: { thread_id: id, metadata: { owner: "me" }, ttl: { ttl: 5 } } });
    expect(res.body).toMatchObject({ thread_id: id, metadata: { owner: "me" } });
  });

  it("answers 422 for a ttl that is not the documented object, and takes one that is", async () => {
    const notObject = await agentServer("POST", "/threads", { body: { ttl: "x" } });
    expect(notObject.status).toBe(422);
    expect(notObject.body).toEqual({ detail: [{ type: "dict_type", loc: ["body", "ttl"], msg: "Input should be a valid dictionary", input: "x" }] });
    const badFields = await agentServer("POST", "/threads", { body: { ttl: { strategy: "keep", ttl: "soon" } } });
    expect(badFields.status).toBe(422);
    expect(badFields.body.detail.map((e: any) => [e.type, e.loc.join(".")])).toEqual([
      ["enum", "body.ttl.strategy"],
      ["float_type", "body.ttl.ttl"],
    ]);
    expect(badFields.body.detail[0].msg).toBe("Input should be 'delete' or 'keep_latest'");
    const fine = await agentServer("POST", "/threads", { body: { ttl: { strategy: "delete", ttl: 30.5 } } });
    expect(fine.status).toBe(200);
  });

  it("answers 409 for an existing thread_id, or the existing thread with if_exists do_nothing", async () => {
    const thread = await createThread({ metadata: { n: 1 } });
    const raised = await agentServer("POST", "/threads", { body: { thread_id: thread.thread_id } });
    expect(raised.status).toBe(409);
    expect(raised.body).toEqual({ detail: expect.stringContaining(thread.thread_id) });
    const kept = await agentServer("POST", "/threads", { body: { thread_id: thread.thread_id, if_exists: "do_nothing", metadata: { n: 2 } } });
    expect(kept.status).toBe(200);
    expect(kept.body).toEqual(thread);
  });

  it("answers 422 for a bad thread_id, metadata, supersteps or malformed JSON", async () => {
    const res = await agentServer("POST", "/threads", { body: { thread_id: "t-1", metadata: "x", supersteps: [{ updates: [] }] } });
    expect(res.status).toBe(422);
    expect(res.body.detail.map((e: any) => [e.type, e.loc.join(".")])).toEqual([
      ["uuid_parsing", "body.thread_id"],
      ["dict_type", "body.metadata"],
      ["too_short", "body.supersteps.0.updates"],
    ]);
    const malformed = await agentServer("POST", "/threads", { rawBody: "{" });
    expect(malformed.status).toBe(422);
    expect(malformed.body.detail[0].type).toBe("json_invalid");
  });
});

describe("GET and DELETE /threads/{thread_id}", () => {
  it("answers 404 {detail} for an unknown thread and 422 for a non-uuid id", async () => {
    const id = crypto.randomUUID();
    expect(await agentServer("GET", `/threads/${id}`)).toMatchObject({ status: 404, body: { detail: `Thread ${id} not found.` } });
    expect(await agentServer("DELETE", `/threads/${id}`)).toMatchObject({ status: 404, body: { detail: `Thread ${id} not found.` } });
    const bad = await agentServer("GET", "/threads/abc");
    expect(bad.status).toBe(422);
    expect(bad.body.detail).toEqual([expect.objectContaining({ type: "uuid_parsing", loc: ["path", "thread_id"], input: "abc" })]);
    expect((await agentServer("DELETE", "/threads/abc")).status).toBe(422);
  });

  it("reads the thread id in every spelling pydantic's UUID takes", async () => {
    const thread = await createThread();
    for (const spelling of [thread.thread_id.replaceAll("-", ""), `urn:uuid:${thread.thread_id}`, thread.thread_id.toUpperCase()]) {
      const res = await agentServer("GET", `/threads/${spelling}`);
      expect(res.status, spelling).toBe(200);
      expect(res.body.thread_id).toBe(thread.thread_id);
    }
  });

  it("deletes a thread (200 {}), after which it is gone", async () => {
    const thread = await createThread();
    const res = await agentServer("DELETE", `/threads/${thread.thread_id.toUpperCase()}`);
    expect(res).toMatchObject({ status: 200, body: {} });
    expect((await agentServer("GET", `/threads/${thread.thread_id}`)).status).toBe(404);
  });
});

describe("routing", () => {
  it("answers 404 {detail: 'Not Found'} for paths the emulator does not serve", async () => {
    expect(await agentServer("POST", "/threads/nowhere", { body: {} })).toMatchObject({ status: 404, body: { detail: "Not Found" } });
    expect(await agentServer("GET", "/assistants")).toMatchObject({ status: 404, body: { detail: "Not Found" } });
  });
});
