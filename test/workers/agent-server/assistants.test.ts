// /assistants end to end through the gateway: every endpoint's answers and refusals.
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { AGENT_DEFAULT_ID, agentServer, createAssistant, freshTag, streamRun, TIMESTAMP, UUID } from "./support.ts";
import { agentServerEnv } from "../support/emulator-env.ts";
import { unknownId } from "../../support/ids.ts";

describe("POST /assistants", () => {
  it("answers 200 with version 1, name defaulting to the graph id, config and context defaulting to {}", async () => {
    const res = await agentServer("POST", "/assistants", { body: { graph_id: "agent" } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      assistant_id: expect.stringMatching(UUID),
      graph_id: "agent",
      config: {},
      context: {},
      metadata: {},
      version: 1,
      name: "agent",
      description: null,
      created_at: expect.stringMatching(TIMESTAMP),
      updated_at: expect.stringMatching(TIMESTAMP),
    });
    const fetched = await agentServer("GET", `/assistants/${res.body.assistant_id}`);
    expect(fetched.status).toBe(200);
    expect(fetched.body).toEqual(res.body);
  });

  it("stores the given id, name, description, config, context and metadata", async () => {
    const id = unknownId();
    const body = {
      assistant_id: id.toUpperCase(),
      graph_id: "pipeline",
      name: "Reviewer",
      description: "reviews drafts",
      config: { tags: ["a"], configurable: { x: 1 } },
      context: { system_prompt: "Be brief." },
      metadata: { team: "docs" },
    };
    const res = await agentServer("POST", "/assistants", { body });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ ...body, assistant_id: id, version: 1 });
  });

  it("answers 409 for an existing id with if_exists raise (the default), and the stored one with do_nothing", async () => {
    const first = await createAssistant({ graph_id: "agent", context: { system_prompt: "original" } });
    const again = { assistant_id: first.assistant_id, graph_id: "agent", context: { system_prompt: "other" } };
    const raised = await agentServer("POST", "/assistants", { body: again });
    expect(raised.status).toBe(409);
    expect(raised.body).toEqual({ detail: expect.stringContaining(first.assistant_id) });
    const explicit = await agentServer("POST", "/assistants", { body: { ...again, if_exists: "raise" } });
    expect(explicit.status).toBe(409);
    const kept = await agentServer("POST", "/assistants", { body: { ...again, if_exists: "do_nothing" } });
    expect(kept.status).toBe(200);
    expect(kept.body).toEqual(first);
  });

  it("answers 404 naming the deployed graphs for an unknown graph", async () => {
    const res = await agentServer("POST", "/assistants", { body: { graph_id: "no-such-graph" } });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ detail: "Graph 'no-such-graph' not found. Deployed graphs: 'agent', 'pipeline', 'approval'." });
  });

  it("answers 422 for a missing graph_id, and for a missing body", async () => {
    const res = await agentServer("POST", "/assistants", { body: { name: "x" } });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ detail: [{ type: "missing", loc: ["body", "graph_id"], msg: "Field required" }] });
    const empty = await agentServer("POST", "/assistants");
    expect(empty.status).toBe(422);
    expect(empty.body.detail[0]).toMatchObject({ type: "missing", loc: ["body"] });
  });

  it("answers 422 for a context that does not match the graph's context schema", async () => {
    const wrongType = await agentServer("POST", "/assistants", { body: { graph_id: "agent", context: { system_prompt: 42 } } });
    expect(wrongType.status).toBe(422);
    expect(wrongType.body.detail).toEqual([
      { type: "string_type", loc: ["body", "context", "system_prompt"], msg: "Input should be a valid string", input: 42 },
    ]);
    const unknownKey = await agentServer("POST", "/assistants", { body: { graph_id: "pipeline", context: { model: "m" } } });
    expect(unknownKey.status).toBe(422);
    expect(unknownKey.body.detail).toEqual([
      { type: "extra_forbidden", loc: ["body", "context", "model"], msg: "Extra inputs are not permitted (graph 'pipeline' takes system_prompt)", input: "m" },
    ]);
  });

  it("answers 422 for fields of the wrong type, a non-uuid assistant_id and a bad if_exists", async () => {
    const res = await agentServer("POST", "/assistants", {
      body: { graph_id: "agent", assistant_id: "nope", metadata: [], if_exists: "replace" },
    });
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([
      expect.objectContaining({ type: "uuid_parsing", loc: ["body", "assistant_id"], input: "nope" }),
      expect.objectContaining({ type: "dict_type", loc: ["body", "metadata"] }),
      expect.objectContaining({ type: "enum", loc: ["body", "if_exists"], msg: "Input should be 'raise' or 'do_nothing'" }),
    ]);
  });

  it("answers 422 for a config that is not the documented Config (tags, recursion_limit, configurable)", async () => {
    const res = await agentServer("POST", "/assistants", { body: { graph_id: "agent", config: { tags: [1], recursion_limit: 2.5, configurable: [] } } });
    expect(res.status).toBe(422);
    expect(res.body.detail.map((e: any) => [e.type, e.loc.join(".")])).toEqual([
      ["string_type", "body.config.tags.0"],
      ["int_from_float", "body.config.recursion_limit"],
      ["dict_type", "body.config.configurable"],
    ]);
    const created = await createAssistant({ graph_id: "agent", config: { recursion_limit: 3, other: "kept" } });
    expect(created.config).toEqual({ recursion_limit: 3, other: "kept" });
    const patched = await agentServer("PATCH", `/assistants/${created.assistant_id}`, { body: { config: { tags: "t" } } });
    expect(patched.status).toBe(422);
    expect(patched.body.detail[0]).toMatchObject({ type: "list_type", loc: ["body", "config", "tags"] });
  });

  it("answers 422 json_invalid for malformed JSON", async () => {
    const res = await agentServer("POST", "/assistants", { rawBody: '{"graph_id": "agent",' });
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([expect.objectContaining({ type: "json_invalid", loc: ["body", 0], msg: "JSON decode error" })]);
  });

  it("treats null fields as absent (as Python clients send them)", async () => {
    const res = await agentServer("POST", "/assistants", {
      body: { graph_id: "agent", config: null, context: null, metadata: null, name: null, if_exists: null },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ config: {}, context: {}, metadata: {}, name: "agent" });
  });
});

describe("default assistants", () => {
  it("exist for every graph with uuid5(NAMESPACE_URL, graph_id), created_by system, name = graph id", async () => {
    const res = await agentServer("GET", `/assistants/${AGENT_DEFAULT_ID}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      assistant_id: AGENT_DEFAULT_ID,
      graph_id: "agent",
      name: "agent",
      version: 1,
      context: {},
      metadata: { created_by: "system" },
    });
    const pipeline = await agentServer("GET", "/assistants/024bfc19-7d06-5d5c-92b5-cec6be8620ae");
    expect(pipeline.body).toMatchObject({ graph_id: "pipeline", name: "pipeline", metadata: { created_by: "system" } });
  });

  it("are reachable by graph id wherever an assistant id is accepted", async () => {
    const byGraph = await agentServer("GET", "/assistants/agent");
    expect(byGraph.status).toBe(200);
    expect(byGraph.body.assistant_id).toBe(AGENT_DEFAULT_ID);
    const versions = await agentServer("POST", "/assistants/agent/versions", { body: {} });
    expect(versions.body).toEqual([expect.objectContaining({ assistant_id: AGENT_DEFAULT_ID, version: 1 })]);
  });

  it("cannot be changed or deleted (409): a graph id must keep meaning the same configuration", async () => {
    for (const [method, path, body] of [
      ["PATCH", "/assistants/agent", { context: { system_prompt: "x" } }],
      ["POST", "/assistants/agent/latest", { version: 1 }],
      ["DELETE", `/assistants/${AGENT_DEFAULT_ID}`, undefined],
    ] as const) {
      const res = await agentServer(method, path, { body });
      expect(res.status, `${method} ${path}`).toBe(409);
      expect(res.body.detail).toContain("default assistant of graph 'agent'");
    }
    expect((await agentServer("GET", "/assistants/agent")).body.version).toBe(1);
  });
});

describe("GET /assistants/{assistant_id}", () => {
  it("answers 404 {detail} for an unknown id", async () => {
    const id = unknownId();
    const res = await agentServer("GET", `/assistants/${id}`);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ detail: `Assistant ${id} not found.` });
  });

  it("answers 422 for an id that is neither a UUID nor a graph id", async () => {
    const res = await agentServer("GET", "/assistants/not-a-uuid");
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      detail: [{ type: "uuid_parsing", loc: ["path", "assistant_id"], msg: "Input should be a valid UUID, invalid character or length", input: "not-a-uuid" }],
    });
  });
});

describe("PATCH /assistants/{assistant_id}", () => {
  it("stores version N+1 from the fields given, replaces context whole (no merge) and makes it active", async () => {
    const created = await createAssistant({
      graph_id: "agent",
      name: "A",
      context: { system_prompt: "one", model: "m1" },
      metadata: { a: 1 },
      config: { tags: ["t"] },
    });
    const res = await agentServer("PATCH", `/assistants/${created.assistant_id}`, { body: { context: { model: "m2" }, metadata: { b: 2 } } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      assistant_id: created.assistant_id,
      version: 2,
      context: { model: "m2" },
      // Fields not given keep the active version's values; metadata merges key by key.
      name: "A",
      config: { tags: ["t"] },
      metadata: { a: 1, b: 2 },
      created_at: created.created_at,
    });
    expect(res.body.context).not.toHaveProperty("system_prompt");
    expect((await agentServer("GET", `/assistants/${created.assistant_id}`)).body).toEqual(res.body);

    const third = await agentServer("PATCH", `/assistants/${created.assistant_id}`, { body: { name: "B", graph_id: "pipeline", context: {} } });
    expect(third.body).toMatchObject({ version: 3, name: "B", graph_id: "pipeline", context: {} });
  });

  it("numbers from the newest version even when an older one is active", async () => {
    const created = await createAssistant({ graph_id: "agent" });
    await agentServer("PATCH", `/assistants/${created.assistant_id}`, { body: { context: { model: "2" } } });
    await agentServer("POST", `/assistants/${created.assistant_id}/latest`, { body: { version: 1 } });
    const res = await agentServer("PATCH", `/assistants/${created.assistant_id}`, { body: { context: { model: "3" } } });
    expect(res.body.version).toBe(3);
  });

  it("answers 404 for an unknown assistant or graph, 422 for a context the graph refuses and for a non-uuid id", async () => {
    const missing = unknownId();
    expect(await agentServer("PATCH", `/assistants/${missing}`, { body: {} })).toMatchObject({
      status: 404,
      body: { detail: `Assistant ${missing} not found.` },
    });
    const created = await createAssistant({ graph_id: "agent", context: { model: "m" } });
    const badGraph = await agentServer("PATCH", `/assistants/${created.assistant_id}`, { body: { graph_id: "nope" } });
    expect(badGraph.status).toBe(404);
    const badContext = await agentServer("PATCH", `/assistants/${created.assistant_id}`, { body: { context: { model: ["x"] } } });
    expect(badContext.status).toBe(422);
    expect(badContext.body.detail[0]).toMatchObject({ type: "string_type", loc: ["body", "context", "model"] });
    expect((await agentServer("PATCH", "/assistants/123", { body: {} })).status).toBe(422);
    expect((await agentServer("PATCH", `/assistants/${created.assistant_id}`, { rawBody: "{oops" })).body.detail[0].type).toBe("json_invalid");
    // Nothing was stored by the refused updates.
    expect((await agentServer("GET", `/assistants/${created.assistant_id}`)).body.version).toBe(1);
  });
});

describe("POST /assistants/{assistant_id}/latest", () => {
  it("makes an existing version active, with that version's configuration", async () => {
    const created = await createAssistant({ graph_id: "agent", name: "first", context: { system_prompt: "one" } });
    await agentServer("PATCH", `/assistants/${created.assistant_id}`, { body: { name: "second", context: { system_prompt: "two" } } });
    const res = await agentServer("POST", `/assistants/${created.assistant_id}/latest`, { body: { version: 1 } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ version: 1, name: "first", context: { system_prompt: "one" }, created_at: created.created_at });
    expect((await agentServer("GET", `/assistants/${created.assistant_id}`)).body.version).toBe(1);
  });

  it("also takes the version as a query parameter (as the OpenAPI description lists it)", async () => {
    const created = await createAssistant({ graph_id: "agent" });
    await agentServer("PATCH", `/assistants/${created.assistant_id}`, { body: { context: { model: "x" } } });
    const res = await agentServer("POST", `/assistants/${created.assistant_id}/latest?version=1`);
    expect(res.status).toBe(200);
    expect(res.body.version).toBe(1);
  });

  it("answers 404 for a version that does not exist and for an unknown assistant", async () => {
    const created = await createAssistant({ graph_id: "agent" });
    for (const version of [0, 2, -1]) {
      const res = await agentServer("POST", `/assistants/${created.assistant_id}/latest`, { body: { version } });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ detail: `Assistant ${created.assistant_id} has no version ${version}; its versions are 1 to 1.` });
    }
    expect((await agentServer("POST", `/assistants/${unknownId()}/latest`, { body: { version: 1 } })).status).toBe(404);
  });

  it("answers 422 for a missing or non-integer version", async () => {
    const created = await createAssistant({ graph_id: "agent" });
    const missing = await agentServer("POST", `/assistants/${created.assistant_id}/latest`, { body: {} });
    expect(missing.status).toBe(422);
    expect(missing.body.detail).toEqual([{ type: "missing", loc: ["body", "version"], msg: "Field required" }]);
    const text = await agentServer("POST", `/assistants/${created.assistant_id}/latest`, { body: { version: "one" } });
    expect(text.status).toBe(422);
    expect(text.body.detail[0]).toMatchObject({ loc: ["body", "version"] });
  });
});

describe("POST /assistants/{assistant_id}/versions", () => {
  it("answers a bare array, newest first, paged, filtered by metadata", async () => {
    const created = await createAssistant({ graph_id: "agent", metadata: { stage: "draft" } });
    for (let i = 2; i <= 4; i++) {
      await agentServer("PATCH", `/assistants/${created.assistant_id}`, { body: { context: { model: `m${i}` }, metadata: i === 3 ? { stage: "final" } : {} } });
    }
    const all = await agentServer("POST", `/assistants/${created.assistant_id}/versions`, { body: {} });
    expect(all.status).toBe(200);
    expect(all.body.map((v: any) => v.version)).toEqual([4, 3, 2, 1]);
    // Every field of the Assistant schema, which the document requires of each item; a version
    // never changes, so it was last updated when it was created.
    expect(Object.keys(all.body[0]).sort()).toEqual([
      "assistant_id",
      "config",
      "context",
      "created_at",
      "description",
      "graph_id",
      "metadata",
      "name",
      "updated_at",
      "version",
    ]);
    for (const version of all.body) expect(version.updated_at).toBe(version.created_at);
    expect(all.body[2]).toMatchObject({ version: 2, context: { model: "m2" } });

    const page = await agentServer("POST", `/assistants/${created.assistant_id}/versions`, { body: { limit: 2, offset: 1 } });
    expect(page.body.map((v: any) => v.version)).toEqual([3, 2]);
    const final = await agentServer("POST", `/assistants/${created.assistant_id}/versions`, { body: { metadata: { stage: "final" } } });
    expect(final.body.map((v: any) => v.version)).toEqual([4, 3]);
  });

  it("takes no body as {} (every field is optional)", async () => {
    const created = await createAssistant({ graph_id: "agent" });
    const res = await agentServer("POST", `/assistants/${created.assistant_id}/versions`);
    expect(res.status).toBe(200);
    expect(res.body).toHaveLength(1);
  });

  it("answers 404 for an unknown assistant and 422 for bounds", async () => {
    expect((await agentServer("POST", `/assistants/${unknownId()}/versions`, { body: {} })).status).toBe(404);
    const created = await createAssistant({ graph_id: "agent" });
    const res = await agentServer("POST", `/assistants/${created.assistant_id}/versions`, { body: { limit: 0, offset: -1 } });
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([
      expect.objectContaining({ type: "greater_than_equal", loc: ["body", "limit"], ctx: { ge: 1 } }),
      expect.objectContaining({ type: "greater_than_equal", loc: ["body", "offset"], ctx: { ge: 0 } }),
    ]);
  });
});

describe("POST /assistants/search and /assistants/count", () => {
  it("answers a bare array filtered by metadata, graph_id and name, newest first, paged with pagination headers", async () => {
    const tag = freshTag();
    const a = await createAssistant({ graph_id: "agent", name: "Alpha helper", metadata: tag });
    const b = await createAssistant({ graph_id: "pipeline", name: "Beta", metadata: tag });
    const c = await createAssistant({ graph_id: "agent", name: "Gamma HELPER", metadata: { ...tag, extra: true } });

    const all = await agentServer("POST", "/assistants/search", { body: { metadata: tag } });
    expect(all.status).toBe(200);
    expect(all.body.map((x: any) => x.assistant_id)).toEqual([c.assistant_id, b.assistant_id, a.assistant_id]);
    expect(all.headers.get("x-pagination-total")).toBe("3");
    expect(all.headers.get("x-pagination-next")).toBeNull();

    const agents = await agentServer("POST", "/assistants/search", { body: { metadata: tag, graph_id: "agent", sort_by: "name", sort_order: "asc" } });
    expect(agents.body.map((x: any) => x.name)).toEqual(["Alpha helper", "Gamma HELPER"]);
    const helpers = await agentServer("POST", "/assistants/search", { body: { metadata: tag, name: "helper" } });
    expect(helpers.body).toHaveLength(2);

    const page = await agentServer("POST", "/assistants/search", { body: { metadata: tag, limit: 1, offset: 1, select: ["assistant_id", "name"] } });
    expect(page.body).toEqual([{ assistant_id: b.assistant_id, name: "Beta" }]);
    expect(page.headers.get("x-pagination-next")).toBe("2");

    expect((await agentServer("POST", "/assistants/count", { body: { metadata: tag } })).body).toBe(3);
    expect((await agentServer("POST", "/assistants/count", { body: { metadata: tag, graph_id: "agent" } })).body).toBe(2);
  });

  it("lists the default assistants too", async () => {
    const res = await agentServer("POST", "/assistants/search", { body: { metadata: { created_by: "system" }, sort_by: "graph_id", sort_order: "asc" } });
    expect(res.body.map((x: any) => x.graph_id)).toEqual(["agent", "approval", "pipeline"]);
  });

  it("answers 422 for bad bounds and enums", async () => {
    const res = await agentServer("POST", "/assistants/search", { body: { limit: 1001, sort_by: "version" } });
    expect(res.status).toBe(422);
    expect(res.body.detail.map((e: any) => e.loc)).toEqual([
      ["body", "limit"],
      ["body", "sort_by"],
    ]);
  });
});

describe("DELETE /assistants/{assistant_id}", () => {
  it("removes the assistant and all its versions", async () => {
    const created = await createAssistant({ graph_id: "agent" });
    await agentServer("PATCH", `/assistants/${created.assistant_id}`, { body: { context: { model: "x" } } });
    const res = await agentServer("DELETE", `/assistants/${created.assistant_id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({});
    expect((await agentServer("GET", `/assistants/${created.assistant_id}`)).status).toBe(404);
    expect((await agentServer("POST", `/assistants/${created.assistant_id}/versions`, { body: {} })).status).toBe(404);
    expect((await agentServer("POST", `/assistants/${created.assistant_id}/latest`, { body: { version: 1 } })).status).toBe(404);
    const again = await agentServer("DELETE", `/assistants/${created.assistant_id}`);
    expect(again).toMatchObject({ status: 404, body: { detail: `Assistant ${created.assistant_id} not found.` } });
    // The id is free again: a new assistant under it starts over at version 1.
    const reborn = await createAssistant({ graph_id: "agent", assistant_id: created.assistant_id });
    expect(reborn.version).toBe(1);
  });

  it("with delete_threads=true also deletes the threads its runs used; 422 for a non-boolean", async () => {
    const created = await createAssistant({ graph_id: "agent" });
    const thread = (await agentServer("POST", "/threads", { body: {} })).body;
    const run = await streamRun(thread.thread_id, { assistant_id: created.assistant_id, input: null });
    expect(run.res.status).toBe(200);
    expect((await agentServer("DELETE", `/assistants/${created.assistant_id}?delete_threads=maybe`)).status).toBe(422);
    expect((await agentServer("DELETE", `/assistants/${created.assistant_id}?delete_threads=true`)).status).toBe(200);
    expect((await agentServer("GET", `/threads/${thread.thread_id}`)).status).toBe(404);
    // Deleted as DELETE /threads/{id} deletes: nothing of the thread is left behind.
    const left = await runInDurableObject(agentServerEnv.AGENT_SERVER_STATE.getByName("agent-server"), (_, state) =>
      ["runs", "run_events", "checkpoints"].map(
        (table) => state.storage.sql.exec(`SELECT count(*) AS n FROM ${table} WHERE thread_id = ?`, thread.thread_id).one().n,
      ),
    );
    expect(left).toEqual([0, 0, 0]);
  });

  it("answers 422 for a non-uuid id", async () => {
    const res = await agentServer("DELETE", "/assistants/xyz");
    expect(res.status).toBe(422);
    expect(res.body.detail[0]).toMatchObject({ type: "uuid_parsing", loc: ["path", "assistant_id"] });
  });
});
