import { evictDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { TemplateCreateRequest } from "../../../emulators/control-plane/templates/schema.ts";
import { SEED_TEMPLATES } from "../../../emulators/control-plane/templates/seed.ts";
import { controlPlane, freshWorkspace } from "./support.ts";
import { controlPlaneEnv } from "../support/emulator-env.ts";

const TEMPLATES = "/v2/sandboxes/templates";
const SEED_NAMES = SEED_TEMPLATES.map((seed) => seed.name);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

/** A complete create request: every settable field given. */
const fullTemplate = (name: string) => ({
  name,
  image: "ghcr.io/acme/agent-sandbox:1.4.2",
  resources: { cpu: "750m", memory: "3Gi", storage: "25G" },
  volume_mounts: [{ volume_name: "workspace", mount_path: "/workspace" }],
  proxy_config: {
    rules: [
      {
        name: "acme-api",
        match_hosts: ["api.acme.test", "*.acme.test"],
        match_paths: ["/v2/*", "/health"],
        inject_headers: { Authorization: "Bearer ${API_TOKEN}", "X-Tenant": "sandbox" },
        enabled: false,
      },
    ],
    no_proxy: ["localhost", ".cluster.local"],
  },
});

async function list(workspace: string, query = "") {
  const res = await controlPlane("GET", `${TEMPLATES}${query}`, { workspace });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as { templates: any[]; offset: number };
}

async function create(workspace: string, body: unknown) {
  const res = await controlPlane("POST", TEMPLATES, { workspace, body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

/** The 422 errors of a create request, as `[type, loc]` pairs. */
async function refusedCreate(body: unknown) {
  const res = await controlPlane("POST", TEMPLATES, { workspace: freshWorkspace(), body });
  expect(res.status, JSON.stringify(res.body)).toBe(422);
  for (const error of res.body.detail) expect(typeof error.msg).toBe("string");
  return res.body.detail.map((e: { type: string; loc: unknown[] }) => [e.type, e.loc]);
}

function expectSandboxTemplate(template: any) {
  expect(Object.keys(template).sort()).toEqual(
    ["id", "name", "image", "resources", "volume_mounts", "proxy_config", "registry_name", "registry_id", "created_at", "updated_at"].sort(),
  );
  expect(template.id).toMatch(UUID);
  expect(template.registry_id).toMatch(UUID);
  for (const field of ["name", "image", "registry_name"]) expect(typeof template[field]).toBe("string");
  expect(template.created_at).toMatch(ISO_TIME);
  expect(template.updated_at).toMatch(ISO_TIME);
  expect(Object.keys(template.resources).sort()).toEqual(["cpu", "memory", "storage"]);
  for (const quantity of Object.values(template.resources)) expect(typeof quantity).toBe("string");
  for (const mount of template.volume_mounts) {
    expect(Object.keys(mount).sort()).toEqual(["mount_path", "volume_name"]);
    expect(mount.mount_path).toMatch(/^\//);
  }
  expect(Object.keys(template.proxy_config).sort()).toEqual(["no_proxy", "rules"]);
  expect(Array.isArray(template.proxy_config.no_proxy)).toBe(true);
  for (const rule of template.proxy_config.rules) {
    expect(Object.keys(rule).sort()).toEqual(["enabled", "inject_headers", "match_hosts", "match_paths", "name"]);
    expect(typeof rule.name).toBe("string");
    expect(typeof rule.enabled).toBe("boolean");
    for (const list of [rule.match_hosts, rule.match_paths]) for (const item of list) expect(typeof item).toBe("string");
    for (const value of Object.values(rule.inject_headers)) expect(typeof value).toBe("string");
  }
}

describe("GET /v2/sandboxes/templates: the seeded listing", () => {
  it("starts every workspace with the seed templates, every spec field present and typed", async () => {
    const workspace = freshWorkspace();
    const body = await list(workspace);
    expect(Object.keys(body).sort()).toEqual(["offset", "templates"]);
    expect(body.templates.map((t) => t.name)).toEqual(SEED_NAMES);
    expect(body.offset).toBe(SEED_NAMES.length);
    for (const template of body.templates) expectSandboxTemplate(template);
    expect(new Set(body.templates.map((t) => t.id)).size).toBe(SEED_NAMES.length);

    const python = body.templates.find((t) => t.name === "python-data-science");
    expect(python).toMatchObject({ image: "quay.io/jupyter/scipy-notebook:python-3.12", registry_name: "quay.io", resources: { cpu: "2", memory: "8Gi" } });
    const rules = body.templates.flatMap((t) => t.proxy_config.rules);
    expect(rules.some((r) => Object.values(r.inject_headers).some((v) => String(v).includes("${API_TOKEN}")))).toBe(true);
    expect(rules.some((r) => r.match_paths.some((p: string) => p.endsWith("/*")))).toBe(true);
  });

  it("seeds each workspace with its own ids", async () => {
    const [a, b] = await Promise.all([list(freshWorkspace()), list(freshWorkspace())]);
    const idsOfA = new Set(a.templates.map((t) => t.id));
    expect(b.templates.some((t) => idsOfA.has(t.id))).toBe(false);
  });
});

describe("GET /v2/sandboxes/templates: paging", () => {
  it("walks to the end with the returned offset: none missing, none twice, in creation order", async () => {
    const workspace = freshWorkspace();
    const created: string[] = [];
    for (let i = 0; i < 9; i++) created.push((await create(workspace, { name: `paged-${i}`, image: "python:3.12" })).id);
    const seeded = (await list(workspace, "?limit=3")).templates.map((t) => t.id);

    const walked: string[] = [];
    const offsets: number[] = [];
    let offset = 0;
    for (let pages = 0; pages < 10; pages++) {
      const body = await list(workspace, `?limit=5&offset=${offset}`);
      expect(body.templates.length).toBeLessThanOrEqual(5);
      expect(body.offset).toBe(offset + body.templates.length);
      offsets.push(body.offset);
      if (body.templates.length === 0) break;
      walked.push(...body.templates.map((t) => t.id));
      offset = body.offset;
    }
    expect(offsets).toEqual([5, 10, 12, 12]);
    expect(walked).toEqual([...seeded, ...created]);
    expect(new Set(walked).size).toBe(12);
  });

  it("returns at most 500 when no limit is sent (the default), and the rest from the returned offset", async () => {
    const workspace = freshWorkspace();
    // 498 more through the store directly (HTTP would only be slower), 501 in all with the seeds.
    const templates = controlPlaneEnv.CONTROL_PLANE_WORKSPACES.getByName(workspace).templates();
    const results = await Promise.all(
      Array.from({ length: 498 }, (_, i) => templates.create(TemplateCreateRequest.parse({ name: `bulk-${i}`, image: "node:22" }))),
    );
    expect(results.every((r) => r.ok)).toBe(true);

    const first = await list(workspace);
    expect(first.templates).toHaveLength(500);
    expect(first.offset).toBe(500);
    const explicit = await list(workspace, "?limit=500");
    expect(explicit.templates.map((t) => t.id)).toEqual(first.templates.map((t) => t.id));
    const rest = await list(workspace, `?offset=${first.offset}`);
    expect(rest.templates).toHaveLength(1);
    expect(rest.offset).toBe(501);
    expect(first.templates.some((t) => t.id === rest.templates[0].id)).toBe(false);
    expect(await list(workspace, `?offset=${rest.offset}`)).toEqual({ templates: [], offset: 501 });
  });

  it("answers an offset past the end with an empty page that keeps the offset", async () => {
    expect(await list(freshWorkspace(), "?offset=1000&limit=1")).toEqual({ templates: [], offset: 1000 });
  });

  it.each([
    ["?limit=501", { type: "less_than_equal", loc: ["query", "limit"], msg: "Input should be less than or equal to 500", input: "501", ctx: { le: 500 } }],
    ["?limit=0", { type: "greater_than_equal", loc: ["query", "limit"], msg: "Input should be greater than or equal to 1", input: "0", ctx: { ge: 1 } }],
    [
      "?limit=abc",
      { type: "int_parsing", loc: ["query", "limit"], msg: "Input should be a valid integer, unable to parse string as an integer", input: "abc" },
    ],
    [
      "?limit=2.5",
      { type: "int_parsing", loc: ["query", "limit"], msg: "Input should be a valid integer, unable to parse string as an integer", input: "2.5" },
    ],
    ["?offset=-1", { type: "greater_than_equal", loc: ["query", "offset"], msg: "Input should be greater than or equal to 0", input: "-1", ctx: { ge: 0 } }],
  ])("answers %s with 422", async (query, error) => {
    const res = await controlPlane("GET", `${TEMPLATES}${query}`, { workspace: freshWorkspace() });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ detail: [error] });
  });

  it("needs credentials like every control-plane route", async () => {
    const res = await controlPlane("GET", TEMPLATES);
    expect(res.status).toBe(401);
    expect(typeof res.body.detail).toBe("string");
  });
});

describe("POST, GET and DELETE /v2/sandboxes/templates/{template_id}", () => {
  it("creates (201), reads (200) and deletes (204) a template", async () => {
    const workspace = freshWorkspace();
    const request = fullTemplate("acme-agent");
    const created = await create(workspace, request);
    expectSandboxTemplate(created);
    expect(created).toMatchObject({ ...request, registry_name: "ghcr.io" });
    expect(created.updated_at).toBe(created.created_at);

    const read = await controlPlane("GET", `${TEMPLATES}/${created.id}`, { workspace });
    expect(read.status).toBe(200);
    expect(read.body).toEqual(created);
    expect((await list(workspace)).templates.at(-1)).toEqual(created);

    const deleted = await controlPlane("DELETE", `${TEMPLATES}/${created.id}`, { workspace });
    expect(deleted.status).toBe(204);
    expect(deleted.body).toBeUndefined();
    const gone = await controlPlane("GET", `${TEMPLATES}/${created.id}`, { workspace });
    expect(gone.status).toBe(404);
    expect((await list(workspace)).templates.map((t) => t.name)).toEqual(SEED_NAMES);
  });

  it("defaults everything but name and image", async () => {
    const created = await create(freshWorkspace(), { name: "minimal", image: "python:3.12-slim" });
    expect(created).toMatchObject({
      name: "minimal",
      image: "python:3.12-slim",
      resources: { cpu: "1", memory: "2Gi", storage: "10Gi" },
      volume_mounts: [],
      proxy_config: { rules: [], no_proxy: [] },
      registry_name: "docker.io",
    });
    const withRule = await create(freshWorkspace(), { name: "r", image: "x", proxy_config: { rules: [{ name: "all", match_hosts: ["a.test"] }] } });
    expect(withRule.proxy_config.rules).toEqual([{ name: "all", match_hosts: ["a.test"], match_paths: ["/*"], inject_headers: {}, enabled: true }]);
  });

  it("gives one registry one id in a workspace, and keeps a registry id that is sent", async () => {
    const workspace = freshWorkspace();
    const a = await create(workspace, { name: "a", image: "python:3.12" });
    const b = await create(workspace, { name: "b", image: "library/node:22" });
    const c = await create(workspace, { name: "c", image: "ghcr.io/acme/app:1" });
    expect(b.registry_id).toBe(a.registry_id);
    expect(c.registry_id).not.toBe(a.registry_id);
    const chosen = "9E1F3C2A-7B4D-4C5E-8F60-1A2B3C4D5E6F";
    const d = await create(workspace, { name: "d", image: "x", registry_name: "internal", registry_id: chosen });
    expect(d).toMatchObject({ registry_name: "internal", registry_id: chosen.toLowerCase() });
    expect((await create(workspace, { name: "e", image: "x", registry_name: "internal" })).registry_id).toBe(chosen.toLowerCase());
  });

  it("refuses a second template with the same name (409), a seed's name included", async () => {
    const workspace = freshWorkspace();
    const first = await create(workspace, { name: "twice", image: "python:3.12" });
    const again = await controlPlane("POST", TEMPLATES, { workspace, body: { name: "twice", image: "node:22" } });
    expect(again.status).toBe(409);
    expect(again.body.detail).toContain("'twice'");
    expect(again.body.detail).toContain(first.id);
    const seedName = await controlPlane("POST", TEMPLATES, { workspace, body: { name: SEED_NAMES[0], image: "node:22" } });
    expect(seedName.status).toBe(409);
  });

  it("answers 404 naming the id, for GET and DELETE", async () => {
    const workspace = freshWorkspace();
    const id = crypto.randomUUID();
    for (const method of ["GET", "DELETE"]) {
      const res = await controlPlane(method, `${TEMPLATES}/${id}`, { workspace });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ detail: `Sandbox template ID ${id} not found.` });
    }
  });

  it("reads an id in any case", async () => {
    const workspace = freshWorkspace();
    const created = await create(workspace, { name: "cased", image: "python:3.12" });
    const res = await controlPlane("GET", `${TEMPLATES}/${created.id.toUpperCase()}`, { workspace });
    expect(res.status).toBe(200);
    expect(res.body.id).toBe(created.id);
  });

  it("answers 422 for an id that is not a UUID", async () => {
    for (const method of ["GET", "DELETE"]) {
      const res = await controlPlane(method, `${TEMPLATES}/not-a-uuid`, { workspace: freshWorkspace() });
      expect(res.status).toBe(422);
      expect(res.body.detail).toEqual([expect.objectContaining({ type: "uuid_parsing", loc: ["path", "template_id"], input: "not-a-uuid" })]);
    }
  });
});

describe("POST /v2/sandboxes/templates: validation (422)", () => {
  it.each([
    ["4GB", "memory", /unknown suffix 'GB'/],
    ["-1", "cpu", /greater than zero/],
    ["0", "cpu", /greater than zero/],
    ["abc", "storage", /does not start with a number/],
    ["", "memory", /empty/],
    ["512m", "memory", /whole number of bytes/],
  ])("refuses the quantity %j as %s", async (quantity, resource, reason) => {
    const res = await controlPlane("POST", TEMPLATES, { workspace: freshWorkspace(), body: { name: "q", image: "x", resources: { [resource]: quantity } } });
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([{ type: "value_error", loc: ["body", "resources", resource], msg: expect.stringMatching(reason), input: quantity }]);
  });

  it("accepts the quantity forms of the grammar", async () => {
    const workspace = freshWorkspace();
    const forms = [
      { cpu: "500m", memory: "512Mi", storage: "10G" },
      { cpu: "0.5", memory: "4Gi", storage: "1e10" },
      { cpu: "2", memory: "1.5Gi", storage: "20Ti" },
      { cpu: "+1", memory: "1E3", storage: "100k" },
    ];
    for (const [i, resources] of forms.entries()) expect((await create(workspace, { name: `q${i}`, image: "x", resources })).resources).toEqual(resources);
  });

  it("refuses a wildcard that is not at the end of a path, where it is", async () => {
    const body = fullTemplate("w");
    body.proxy_config.rules[0]!.match_paths = ["/v2/*", "/v2/*/admin"];
    expect(await refusedCreate(body)).toEqual([["value_error", ["body", "proxy_config", "rules", 0, "match_paths", 1]]]);
  });

  it("refuses an unterminated or malformed ${ reference in an injected header", async () => {
    for (const value of ["Bearer ${API_TOKEN", "Bearer ${API-TOKEN}", "${}"]) {
      const body = fullTemplate("h");
      body.proxy_config.rules[0]!.inject_headers = { Authorization: value, "X-Tenant": "sandbox" };
      expect(await refusedCreate(body)).toEqual([["value_error", ["body", "proxy_config", "rules", 0, "inject_headers", "Authorization"]]]);
    }
  });

  it("refuses a header name that is not an HTTP token", async () => {
    const body = fullTemplate("n");
    body.proxy_config.rules[0]!.inject_headers = { "X Bad": "v" } as never;
    expect(await refusedCreate(body)).toEqual([["value_error", ["body", "proxy_config", "rules", 0, "inject_headers", "X Bad", "[key]"]]]);
  });

  it("refuses a missing required field", async () => {
    const res = await controlPlane("POST", TEMPLATES, { workspace: freshWorkspace(), body: { name: "no-image" } });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ detail: [{ type: "missing", loc: ["body", "image"], msg: "Field required" }] });
    expect(await refusedCreate({ image: "x" })).toEqual([["missing", ["body", "name"]]]);
  });

  it("refuses bad mounts, an image that is no reference, and unknown fields", async () => {
    expect(
      await refusedCreate({
        name: "m",
        image: "Not An Image",
        volume_mounts: [{ volume_name: "data", mount_path: "data" }],
        proxy_config: { rules: [], no_proxy: ["a,b"] },
        id: crypto.randomUUID(),
      }),
    ).toEqual([
      ["value_error", ["body", "image"]],
      ["value_error", ["body", "volume_mounts", 0, "mount_path"]],
      ["value_error", ["body", "proxy_config", "no_proxy", 0]],
      ["extra_forbidden", ["body", "id"]],
    ]);
  });

  it("answers malformed JSON with json_invalid, and a body that is no object with dict_type", async () => {
    const workspace = freshWorkspace();
    const res = await controlPlane("POST", TEMPLATES, { workspace, rawBody: '{"name": "x", ' });
    expect(res.status).toBe(422);
    expect(res.body.detail[0]).toMatchObject({ type: "json_invalid", loc: ["body", 0] });
    expect(await refusedCreate([])).toEqual([["dict_type", ["body"]]]);
    expect((await list(workspace)).templates.map((t) => t.name)).toEqual(SEED_NAMES);
  });
});

describe("templates: isolation and durability", () => {
  it("keeps a workspace's templates from every other workspace", async () => {
    const mine = freshWorkspace();
    const other = freshWorkspace();
    const created = await create(mine, { name: "private", image: "python:3.12" });
    expect((await list(other)).templates.map((t) => t.name)).toEqual(SEED_NAMES);
    expect((await controlPlane("GET", `${TEMPLATES}/${created.id}`, { workspace: other })).status).toBe(404);
    expect((await controlPlane("DELETE", `${TEMPLATES}/${created.id}`, { workspace: other })).status).toBe(404);
    expect((await controlPlane("GET", `${TEMPLATES}/${created.id}`, { workspace: mine })).status).toBe(200);
  });

  it("keeps templates across a Durable Object restart, and a deleted seed stays deleted", async () => {
    const workspace = freshWorkspace();
    const created = await create(workspace, fullTemplate("durable"));
    const seed = (await list(workspace)).templates[0];
    expect((await controlPlane("DELETE", `${TEMPLATES}/${seed.id}`, { workspace })).status).toBe(204);
    const before = await list(workspace);

    await evictDurableObject(controlPlaneEnv.CONTROL_PLANE_WORKSPACES.getByName(workspace));

    const after = await list(workspace);
    expect(after).toEqual(before);
    expect(after.templates.map((t) => t.name)).toEqual([...SEED_NAMES.slice(1), "durable"]);
    expect((await controlPlane("GET", `${TEMPLATES}/${created.id}`, { workspace })).body).toEqual(created);
    // The name of a deleted seed is free again; the workspace is not re-seeded.
    await create(workspace, { name: SEED_NAMES[0], image: "python:3.12" });
    expect((await list(workspace)).templates).toHaveLength(SEED_NAMES.length + 1);
  });
});
