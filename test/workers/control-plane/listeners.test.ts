// /v2/listeners end to end through the gateway: every endpoint's answers, paging, plans,
// isolation between workspaces, concurrency and durability.
import { evictDurableObject, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { controlPlane, freshWorkspace } from "./support.ts";
import { controlPlaneEnv } from "../support/emulator-env.ts";
import { unknownId } from "../../support/ids.ts";

const PLUS_WORKSPACE = "00000000-0000-4000-8000-00000000000b";
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const ISO_DATE_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/;

const createBody = (computeId = `cluster-${crypto.randomUUID().slice(0, 8)}`, extra: Record<string, unknown> = {}) => ({
  compute_type: "k8s",
  compute_id: computeId,
  compute_config: { k8s_namespaces: ["default", "agents"] },
  version: "1.0.0",
  ...extra,
});

async function createListener(workspace: string, body: Record<string, unknown> = createBody()) {
  const res = await controlPlane("POST", "/v2/listeners", { workspace, body });
  expect(res.status).toBe(201);
  return res.body;
}

const listenerPath = (id: string) => `/v2/listeners/${id}`;

describe("POST /v2/listeners", () => {
  it("answers 201 with the stored Listener, and GET answers the same", async () => {
    const workspace = freshWorkspace();
    const res = await controlPlane("POST", "/v2/listeners", { workspace, body: createBody("prod-cluster") });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(UUID_V4),
      compute_type: "k8s",
      compute_id: "prod-cluster",
      compute_config: { k8s_namespaces: ["default", "agents"] },
      version: "1.0.0",
      created_at: expect.stringMatching(ISO_DATE_TIME),
      updated_at: expect.stringMatching(ISO_DATE_TIME),
    });
    expect(res.body.updated_at).toBe(res.body.created_at);
    const fetched = await controlPlane("GET", listenerPath(res.body.id), { workspace });
    expect(fetched.status).toBe(200);
    expect(fetched.body).toEqual(res.body);
  });

  it("defaults version and k8s_namespaces to null and ignores unknown fields", async () => {
    const workspace = freshWorkspace();
    const res = await controlPlane("POST", "/v2/listeners", {
      workspace,
      body: { compute_type: "k8s", compute_id: "c1", compute_config: {}, tenant_id: "x", id: "not-mine" },
    });
    expect(res.status).toBe(201);
    expect(res.body.version).toBeNull();
    expect(res.body.compute_config).toEqual({ k8s_namespaces: null });
    expect(res.body.id).toMatch(UUID_V4);
    expect(res.body).not.toHaveProperty("tenant_id");
  });

  it("answers 409 naming the compute_id when the workspace already has it, and keeps the first", async () => {
    const workspace = freshWorkspace();
    const first = await createListener(workspace, createBody("shared-cluster"));
    const res = await controlPlane("POST", "/v2/listeners", { workspace, body: createBody("shared-cluster", { version: "2" }) });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({
      detail: `Listener for LangSmith workspace ID '${workspace}' and compute ID 'shared-cluster' already exists.`,
    });
    const listed = await controlPlane("GET", "/v2/listeners", { workspace });
    expect(listed.body.resources).toEqual([first]);
  });

  it("lets two workspaces use the same compute_id", async () => {
    await createListener(freshWorkspace(), createBody("same-name"));
    await createListener(freshWorkspace(), createBody("same-name"));
  });

  it("creates exactly one listener from 10 concurrent creates with one compute_id", async () => {
    const workspace = freshWorkspace();
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => controlPlane("POST", "/v2/listeners", { workspace, body: createBody("raced", { version: `v${i}` }) })),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([201, ...Array<number>(9).fill(409)]);
    const winner = results.find((r) => r.status === 201)!.body;
    const listed = await controlPlane("GET", "/v2/listeners", { workspace });
    expect(listed.body.resources).toEqual([winner]);
  });

  it.each([
    ["compute_id missing", { compute_type: "k8s", compute_config: {} }, ["body", "compute_id"], "missing"],
    ["compute_type missing", { compute_id: "c", compute_config: {} }, ["body", "compute_type"], "missing"],
    ["compute_config missing", { compute_type: "k8s", compute_id: "c" }, ["body", "compute_config"], "missing"],
    ["compute_type ecs", { compute_type: "ecs", compute_id: "c", compute_config: {} }, ["body", "compute_type"], "literal_error"],
    ["compute_id empty", { compute_type: "k8s", compute_id: "", compute_config: {} }, ["body", "compute_id"], "string_too_short"],
    ["compute_id a number", { compute_type: "k8s", compute_id: 7, compute_config: {} }, ["body", "compute_id"], "string_type"],
    [
      "a namespace not a string",
      { compute_type: "k8s", compute_id: "c", compute_config: { k8s_namespaces: ["ok", 1] } },
      ["body", "compute_config", "k8s_namespaces", 1],
      "string_type",
    ],
    ["version a number", { compute_type: "k8s", compute_id: "c", compute_config: {}, version: 2 }, ["body", "version"], "string_type"],
  ])("answers 422 when %s", async (_, body, loc, type) => {
    const workspace = freshWorkspace();
    const res = await controlPlane("POST", "/v2/listeners", { workspace, body });
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([expect.objectContaining({ loc, type, msg: expect.any(String) })]);
    expect((await controlPlane("GET", "/v2/listeners", { workspace })).body.resources).toEqual([]);
  });

  it("answers 422 literal_error with the expected value for another compute_type", async () => {
    const res = await controlPlane("POST", "/v2/listeners", { workspace: freshWorkspace(), body: createBody("c", { compute_type: "ecs" }) });
    expect(res.body.detail).toEqual([
      { type: "literal_error", loc: ["body", "compute_type"], msg: "Input should be 'k8s'", input: "ecs", ctx: { expected: "'k8s'" } },
    ]);
  });

  it("answers 422 json_invalid for malformed JSON", async () => {
    const res = await controlPlane("POST", "/v2/listeners", { workspace: freshWorkspace(), rawBody: '{"compute_type": "k8s",' });
    expect(res.status).toBe(422);
    expect(res.body.detail[0]).toMatchObject({ type: "json_invalid", loc: ["body", 0] });
  });
});

describe("GET /v2/listeners/{listener_id}", () => {
  it("answers 404 naming the id", async () => {
    const id = unknownId();
    const res = await controlPlane("GET", listenerPath(id), { workspace: freshWorkspace() });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ detail: `Listener ID ${id} not found.` });
  });

  it("answers 422 uuid_parsing for an id that is not a UUID", async () => {
    const res = await controlPlane("GET", listenerPath("not-a-uuid"), { workspace: freshWorkspace() });
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([expect.objectContaining({ type: "uuid_parsing", loc: ["path", "listener_id"], input: "not-a-uuid" })]);
  });

  it("reads an upper-case id as the same listener, and a well-formed non-v4 id as a 404 (as pydantic's UUID)", async () => {
    const workspace = freshWorkspace();
    const listener = await createListener(workspace);
    const upper = await controlPlane("GET", listenerPath(listener.id.toUpperCase()), { workspace });
    expect(upper.status).toBe(200);
    expect(upper.body.id).toBe(listener.id);
    const odd = await controlPlane("GET", listenerPath("12345678-1234-1234-1234-123456789abc"), { workspace });
    expect(odd.status).toBe(404);
    expect(odd.body.detail).toBe("Listener ID 12345678-1234-1234-1234-123456789abc not found.");
  });

  it("reads every other spelling pydantic's UUID takes (32 digits, braced, urn:uuid:) as the same listener", async () => {
    const workspace = freshWorkspace();
    const listener = await createListener(workspace);
    for (const spelling of [listener.id.replaceAll("-", ""), `{${listener.id}}`, `urn:uuid:${listener.id}`]) {
      const res = await controlPlane("GET", listenerPath(encodeURIComponent(spelling)), { workspace });
      expect(res.status, spelling).toBe(200);
      expect(res.body.id).toBe(listener.id);
    }
  });
});

describe("GET /v2/listeners", () => {
  it("answers an empty page for a new workspace", async () => {
    const res = await controlPlane("GET", "/v2/listeners", { workspace: freshWorkspace() });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ resources: [], offset: 0 });
  });

  it("pages to the end with the returned offset, in (created_at, id) order", async () => {
    const workspace = freshWorkspace();
    const created = [];
    for (let i = 0; i < 5; i++) created.push(await createListener(workspace, createBody(`cluster-${i}`)));
    const sizes: number[] = [];
    const offsets: number[] = [];
    const seen: any[] = [];
    let offset = 0;
    for (let round = 0; round < 10; round++) {
      const res = await controlPlane("GET", `/v2/listeners?limit=2&offset=${offset}`, { workspace });
      expect(res.status).toBe(200);
      sizes.push(res.body.resources.length);
      offsets.push(res.body.offset);
      if (res.body.resources.length === 0) break;
      seen.push(...res.body.resources);
      offset = res.body.offset;
    }
    expect(sizes).toEqual([2, 2, 1, 0]);
    expect(offsets).toEqual([2, 4, 5, 5]);
    expect(new Set(seen.map((l) => l.id))).toEqual(new Set(created.map((l) => l.id)));
    const key = (l: any) => `${l.created_at} ${l.id}`;
    expect(seen.map(key)).toEqual(seen.map(key).sort());
  });

  it("returns 20 by default", async () => {
    const workspace = freshWorkspace();
    await Promise.all(Array.from({ length: 21 }, (_, i) => createListener(workspace, createBody(`c-${i}`))));
    const first = await controlPlane("GET", "/v2/listeners", { workspace });
    expect(first.body.resources).toHaveLength(20);
    expect(first.body.offset).toBe(20);
    const rest = await controlPlane("GET", "/v2/listeners?offset=20&limit=100", { workspace });
    expect(rest.body.resources).toHaveLength(1);
    expect(rest.body.offset).toBe(21);
  });

  it("answers an empty page past the end, echoing the offset", async () => {
    const workspace = freshWorkspace();
    await createListener(workspace);
    const res = await controlPlane("GET", "/v2/listeners?offset=50", { workspace });
    expect(res.body).toEqual({ resources: [], offset: 50 });
  });

  it.each([
    ["limit=0", "limit", "greater_than_equal", { ge: 1 }],
    ["limit=101", "limit", "less_than_equal", { le: 100 }],
    ["limit=abc", "limit", "int_parsing", undefined],
    ["offset=-1", "offset", "greater_than_equal", { ge: 0 }],
  ])("answers 422 for %s", async (query, field, type, ctx) => {
    const res = await controlPlane("GET", `/v2/listeners?${query}`, { workspace: freshWorkspace() });
    expect(res.status).toBe(422);
    expect(res.body.detail).toHaveLength(1);
    expect(res.body.detail[0]).toMatchObject({ loc: ["query", field], type, input: query.split("=")[1] });
    if (ctx) expect(res.body.detail[0].ctx).toEqual(ctx);
  });
});

describe("PATCH /v2/listeners/{listener_id}", () => {
  it("changes version and namespaces, moves updated_at and keeps the rest", async () => {
    const workspace = freshWorkspace();
    const listener = await createListener(workspace, createBody("patched"));
    const res = await controlPlane("PATCH", listenerPath(listener.id), {
      workspace,
      body: { version: "2.0.0", compute_config: { k8s_namespaces: ["team-a"] } },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...listener, version: "2.0.0", compute_config: { k8s_namespaces: ["team-a"] }, updated_at: res.body.updated_at });
    expect(Date.parse(res.body.updated_at)).toBeGreaterThan(Date.parse(listener.updated_at));
    expect((await controlPlane("GET", listenerPath(listener.id), { workspace })).body).toEqual(res.body);
  });

  it("leaves absent fields and a null compute_config unchanged; an explicit null version clears it", async () => {
    const workspace = freshWorkspace();
    const listener = await createListener(workspace);
    const onlyVersion = await controlPlane("PATCH", listenerPath(listener.id), { workspace, body: { version: "3" } });
    expect(onlyVersion.body.compute_config).toEqual(listener.compute_config);
    const nullConfig = await controlPlane("PATCH", listenerPath(listener.id), { workspace, body: { compute_config: null } });
    expect(nullConfig.body).toMatchObject({ version: "3", compute_config: listener.compute_config });
    const cleared = await controlPlane("PATCH", listenerPath(listener.id), { workspace, body: { version: null } });
    expect(cleared.status).toBe(200);
    expect(cleared.body.version).toBeNull();
    expect(Date.parse(cleared.body.updated_at)).toBeGreaterThan(Date.parse(nullConfig.body.updated_at));
  });

  it("moves updated_at forward even when the object's clock has not moved (two writes in one millisecond)", async () => {
    const workspace = freshWorkspace();
    // Inside one call into the object there is no I/O, so Date.now() stands still throughout.
    const stamps = await runInDurableObject(controlPlaneEnv.CONTROL_PLANE_WORKSPACES.getByName(workspace), (object) => {
      const store = object.listeners();
      const created = store.create(workspace, { compute_type: "k8s", compute_id: "clock", compute_config: { k8s_namespaces: null }, version: null });
      if (!created.ok) throw new Error(JSON.stringify(created.detail));
      const stamps = [created.value.updated_at];
      for (const version of ["a", "b", "c"]) {
        const updated = store.update(workspace, created.value.id, { version });
        if (!updated.ok) throw new Error(JSON.stringify(updated.detail));
        stamps.push(updated.value.updated_at);
      }
      return stamps;
    });
    expect(stamps.map(Date.parse)).toEqual(stamps.map(Date.parse).sort((x, y) => x - y));
    expect(new Set(stamps).size).toBe(4);
  });

  it("refuses another compute_id with 400 naming the field, and changes nothing", async () => {
    const workspace = freshWorkspace();
    const listener = await createListener(workspace, createBody("fixed"));
    const res = await controlPlane("PATCH", listenerPath(listener.id), { workspace, body: { compute_id: "other", version: "9" } });
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatch(/^compute_id cannot be changed after creation/);
    expect(res.body.detail).toContain("'fixed'");
    expect(res.body.detail).toContain("'other'");
    expect((await controlPlane("GET", listenerPath(listener.id), { workspace })).body).toEqual(listener);
  });

  it("accepts the same compute_id and compute_type", async () => {
    const workspace = freshWorkspace();
    const listener = await createListener(workspace, createBody("fixed"));
    const res = await controlPlane("PATCH", listenerPath(listener.id), { workspace, body: { compute_type: "k8s", compute_id: "fixed", version: "9" } });
    expect(res.status).toBe(200);
    expect(res.body.version).toBe("9");
  });

  it("answers 422 literal_error for another compute_type", async () => {
    const workspace = freshWorkspace();
    const listener = await createListener(workspace);
    const res = await controlPlane("PATCH", listenerPath(listener.id), { workspace, body: { compute_type: "ecs" } });
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([expect.objectContaining({ loc: ["body", "compute_type"], type: "literal_error" })]);
  });

  it("answers 422 for a bad field type, 404 for an unknown id, 422 for a non-UUID id", async () => {
    const workspace = freshWorkspace();
    const listener = await createListener(workspace);
    const bad = await controlPlane("PATCH", listenerPath(listener.id), { workspace, body: { compute_config: { k8s_namespaces: "default" } } });
    expect(bad.status).toBe(422);
    expect(bad.body.detail).toEqual([expect.objectContaining({ loc: ["body", "compute_config", "k8s_namespaces"], type: "list_type" })]);
    const id = unknownId();
    const missing = await controlPlane("PATCH", listenerPath(id), { workspace, body: { version: "2" } });
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ detail: `Listener ID ${id} not found.` });
    const notUuid = await controlPlane("PATCH", listenerPath("123"), { workspace, body: { version: "2" } });
    expect(notUuid.status).toBe(422);
    expect(notUuid.body.detail[0]).toMatchObject({ loc: ["path", "listener_id"], type: "uuid_parsing" });
  });
});

describe("PUT /v2/listeners/{listener_id}", () => {
  it("replaces the mutable fields; an omitted version becomes null", async () => {
    const workspace = freshWorkspace();
    const listener = await createListener(workspace, createBody("put-me"));
    const res = await controlPlane("PUT", listenerPath(listener.id), {
      workspace,
      body: { compute_type: "k8s", compute_id: "put-me", compute_config: { k8s_namespaces: ["only"] } },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...listener, version: null, compute_config: { k8s_namespaces: ["only"] }, updated_at: res.body.updated_at });
    expect(Date.parse(res.body.updated_at)).toBeGreaterThan(Date.parse(listener.updated_at));
    expect((await controlPlane("GET", listenerPath(listener.id), { workspace })).body).toEqual(res.body);
  });

  it("refuses another compute_id with 400 naming the field, and changes nothing", async () => {
    const workspace = freshWorkspace();
    const listener = await createListener(workspace, createBody("put-fixed"));
    const res = await controlPlane("PUT", listenerPath(listener.id), { workspace, body: createBody("renamed") });
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatch(/^compute_id cannot be changed after creation: listener [0-9a-f-]+ has compute_id 'put-fixed', the request sent 'renamed'/);
    expect((await controlPlane("GET", listenerPath(listener.id), { workspace })).body).toEqual(listener);
  });

  it("answers 422 for a body missing compute_id or with another compute_type, 404 for an unknown id", async () => {
    const workspace = freshWorkspace();
    const listener = await createListener(workspace, createBody("put-422"));
    const missing = await controlPlane("PUT", listenerPath(listener.id), { workspace, body: { compute_type: "k8s", compute_config: {} } });
    expect(missing.status).toBe(422);
    expect(missing.body.detail).toEqual([expect.objectContaining({ loc: ["body", "compute_id"], type: "missing" })]);
    const ecs = await controlPlane("PUT", listenerPath(listener.id), { workspace, body: createBody("put-422", { compute_type: "ecs" }) });
    expect(ecs.status).toBe(422);
    expect(ecs.body.detail).toEqual([expect.objectContaining({ loc: ["body", "compute_type"], type: "literal_error" })]);
    const id = unknownId();
    const unknown = await controlPlane("PUT", listenerPath(id), { workspace, body: createBody("put-422") });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ detail: `Listener ID ${id} not found.` });
  });
});

describe("DELETE /v2/listeners/{listener_id}", () => {
  it("answers 204 with no body; the listener is gone and its compute_id free again", async () => {
    const workspace = freshWorkspace();
    const listener = await createListener(workspace, createBody("short-lived"));
    const kept = await createListener(workspace, createBody("kept"));
    const res = await controlPlane("DELETE", listenerPath(listener.id), { workspace });
    expect(res.status).toBe(204);
    expect(res.body).toBeUndefined();
    expect((await controlPlane("GET", listenerPath(listener.id), { workspace })).status).toBe(404);
    expect((await controlPlane("GET", "/v2/listeners", { workspace })).body.resources).toEqual([kept]);
    const again = await controlPlane("DELETE", listenerPath(listener.id), { workspace });
    expect(again.status).toBe(404);
    expect(again.body).toEqual({ detail: `Listener ID ${listener.id} not found.` });
    await createListener(workspace, createBody("short-lived"));
  });

  it("answers 422 for a non-UUID id", async () => {
    const res = await controlPlane("DELETE", listenerPath("nope"), { workspace: freshWorkspace() });
    expect(res.status).toBe(422);
    expect(res.body.detail[0]).toMatchObject({ loc: ["path", "listener_id"], type: "uuid_parsing" });
  });
});

describe("plans: listeners only on self-hosted enterprise", () => {
  const forbidden = (workspace: string) =>
    `Listeners cannot be created for LangSmith workspace ID '${workspace}'. Creating listeners is only allowed for LangSmith organizations with self-hosted enterprise plans.`;
  const operations: Array<[string, string, string, unknown?]> = [
    ["list", "GET", "/v2/listeners"],
    ["create", "POST", "/v2/listeners", createBody()],
    ["get", "GET", listenerPath(unknownId())],
    ["patch", "PATCH", listenerPath(unknownId()), { version: "2" }],
    ["put", "PUT", listenerPath(unknownId()), createBody()],
    ["delete", "DELETE", listenerPath(unknownId())],
  ];

  it.each(operations)("answers 403 naming the seeded plus workspace on %s", async (_, method, path, body) => {
    const res = await controlPlane(method, path, { workspace: PLUS_WORKSPACE, body });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ detail: forbidden(PLUS_WORKSPACE) });
  });

  it("answers 403 in a workspace set to developer, before 404 or 409, and serves its listeners again once back on self-hosted", async () => {
    const workspace = freshWorkspace();
    const listener = await createListener(workspace, createBody("kept-through-plans"));
    expect((await controlPlane("PUT", `/v2/_emulator/workspaces/${workspace}`, { workspace, body: { plan: "developer" } })).status).toBe(200);
    for (const [method, path, body] of [
      ["GET", listenerPath(listener.id)],
      ["GET", listenerPath(unknownId())],
      ["POST", "/v2/listeners", createBody("kept-through-plans")],
      ["DELETE", listenerPath(listener.id)],
    ] as const) {
      const res = await controlPlane(method, path, { workspace, body });
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(res.body.detail).toBe(forbidden(workspace));
    }
    await controlPlane("PUT", `/v2/_emulator/workspaces/${workspace}`, { workspace, body: { plan: "enterprise-self-hosted" } });
    expect((await controlPlane("GET", listenerPath(listener.id), { workspace })).body).toEqual(listener);
  });

  it("answers 422 before 403: validation runs first, as in FastAPI", async () => {
    const res = await controlPlane("GET", "/v2/listeners?limit=0", { workspace: PLUS_WORKSPACE });
    expect(res.status).toBe(422);
  });
});

describe("workspace isolation", () => {
  it("hides a listener from another workspace: list, get, patch and delete answer as if it did not exist", async () => {
    const a = freshWorkspace();
    const b = freshWorkspace();
    const listener = await createListener(a);
    expect((await controlPlane("GET", "/v2/listeners", { workspace: b })).body).toEqual({ resources: [], offset: 0 });
    for (const [method, body] of [["GET"], ["PATCH", { version: "x" }], ["PUT", createBody(listener.compute_id)], ["DELETE"]] as const) {
      const res = await controlPlane(method, listenerPath(listener.id), { workspace: b, body });
      expect(res.status, method).toBe(404);
      expect(res.body).toEqual({ detail: `Listener ID ${listener.id} not found.` });
    }
    expect((await controlPlane("GET", listenerPath(listener.id), { workspace: a })).body).toEqual(listener);
  });

  it("gives each API key its own default workspace; the same key sees its listeners again", async () => {
    const keyA = `lsv2_${crypto.randomUUID()}`;
    const keyB = `lsv2_${crypto.randomUUID()}`;
    const created = await controlPlane("POST", "/v2/listeners", { apiKey: keyA, body: createBody("keyed") });
    expect(created.status).toBe(201);
    expect((await controlPlane("GET", "/v2/listeners", { apiKey: keyA })).body.resources).toEqual([created.body]);
    expect((await controlPlane("GET", listenerPath(created.body.id), { apiKey: keyA })).status).toBe(200);
    expect((await controlPlane("GET", "/v2/listeners", { apiKey: keyB })).body.resources).toEqual([]);
    expect((await controlPlane("GET", listenerPath(created.body.id), { apiKey: keyB })).status).toBe(404);
    // The compute_id is only taken in A's workspace.
    expect((await controlPlane("POST", "/v2/listeners", { apiKey: keyB, body: createBody("keyed") })).status).toBe(201);
  });
});

describe("durability", () => {
  it("keeps listeners, and their uniqueness, across a Durable Object restart", async () => {
    const workspace = freshWorkspace();
    const listener = await createListener(workspace, createBody("durable"));
    await evictDurableObject(controlPlaneEnv.CONTROL_PLANE_WORKSPACES.getByName(workspace));
    const res = await controlPlane("GET", listenerPath(listener.id), { workspace });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(listener);
    expect((await controlPlane("POST", "/v2/listeners", { workspace, body: createBody("durable") })).status).toBe(409);
  });
});
