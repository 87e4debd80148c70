import { createExecutionContext, evictDurableObject, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { Env } from "../../../src/env.ts";
import { createControlPlane } from "../../../emulators/control-plane/app.ts";
import { contractChecked, controlPlane, freshWorkspace, workspaceKey } from "./support.ts";
import {
  create,
  dockerDeployment,
  githubDeployment,
  manualClock,
  revisionOf,
  SECRET,
  scheduledAlarm,
  storedRevision,
  workspaceObject,
} from "./deployment-support.ts";
import { controlPlaneEnv } from "../support/emulator-env.ts";

/**
 * /v2/deployments through the gateway. Revisions move on the store's clock, which these tests
 * replace (inside the Durable Object) with one they advance by hand, a day ahead of real time so
 * no alarm fires on its own; alarms are run with runDurableObjectAlarm.
 */

const STEP = Number(controlPlaneEnv.CONTROL_PLANE_REVISION_STEP_MS);
const PIPELINE = ["CREATING", "QUEUED", "AWAITING_BUILD", "BUILDING", "AWAITING_DEPLOY", "DEPLOYING", "DEPLOYED"];

describe("POST /v2/deployments", () => {
  it("answers 201 with every Deployment field, the first revision as latest and no secret in clear", async () => {
    const workspace = freshWorkspace();
    const clock = await manualClock(workspace);
    const body = githubDeployment("my-agent");
    const res = await controlPlane("POST", "/v2/deployments", { workspace, body });

    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(
      [
        "id",
        "tenant_id",
        "name",
        "source",
        "source_config",
        "source_revision_config",
        "secrets",
        "secret_references",
        "created_at",
        "updated_at",
        "status",
        "latest_revision_id",
        "active_revision_id",
        "image_version",
      ].sort(),
    );
    expect(res.body).toMatchObject({
      tenant_id: workspace,
      name: "my-agent",
      source: "github",
      status: "AWAITING_DATABASE",
      active_revision_id: null,
      image_version: null,
      secret_references: null,
      created_at: new Date(clock.now).toISOString(),
      updated_at: new Date(clock.now).toISOString(),
      secrets: [{ name: "OPENAI_API_KEY", value: "********" }],
      source_config: {
        ...body.source_config,
        custom_url: null,
        resource_spec: null,
        listener_id: null,
        listener_config: null,
        install_command: null,
        build_command: null,
      },
      source_revision_config: { repo_ref: "main", langgraph_config_path: "langgraph.json", image_uri: null, source_tarball_path: null },
    });
    expect(res.body.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.body.latest_revision_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.body.source_revision_config.repo_commit_sha).toMatch(/^[0-9a-f]{40}$/);
    expect(JSON.stringify(res.body)).not.toContain(SECRET);

    const revision = await revisionOf(workspace, res.body.id, res.body.latest_revision_id);
    expect(revision.status).toBe(200);
    expect(revision.body).toEqual({
      id: res.body.latest_revision_id,
      created_at: res.body.created_at,
      updated_at: res.body.created_at,
      status: "CREATING",
      source: "github",
      source_revision_config: res.body.source_revision_config,
    });
  });

  it("accepts deployment_type serverless (stored as sent, answered as dev), external_docker with secret references, and ignores unknown fields", async () => {
    const workspace = freshWorkspace();
    const serverless = await create(
      workspace,
      githubDeployment("sls", { source_config: { repo_url: "https://github.com/a/b", deployment_type: "serverless" }, color: "blue" }),
    );
    expect(serverless.source_config.deployment_type).toBe("dev");
    expect(serverless).not.toHaveProperty("color");
    const stored = await runInDurableObject(
      workspaceObject(workspace),
      (_i, state) => state.storage.sql.exec("SELECT source_config FROM deployments WHERE id = ?", serverless.id).one().source_config,
    );
    expect(JSON.parse(stored as string).deployment_type).toBe("serverless");
    expect((await controlPlane("GET", "/v2/deployments?deployment_type=dev", { workspace })).body.resources.map((d: { id: string }) => d.id)).toEqual([
      serverless.id,
    ]);
    expect((await controlPlane("GET", "/v2/deployments?deployment_type=dev_free", { workspace })).body.resources).toEqual([]);
    // Sending back what a GET read is no change to the immutable type; another type is.
    const same = await controlPlane("PATCH", `/v2/deployments/${serverless.id}`, { workspace, body: { source_config: { deployment_type: "dev" } } });
    expect(same.status).toBe(200);
    const other = await controlPlane("PATCH", `/v2/deployments/${serverless.id}`, { workspace, body: { source_config: { deployment_type: "prod" } } });
    expect(other.status).toBe(400);

    const references = [{ name: "DB_URL", secret_name: "db", secret_key: "url" }];
    const docker = await create(workspace, dockerDeployment({ secret_references: references }));
    expect(docker).toMatchObject({
      source: "external_docker",
      secret_references: references,
      source_revision_config: { image_uri: "registry.example.com/agent:1.0", repo_commit_sha: null },
    });
  });

  it("answers 422 for a missing name, an unknown source and malformed JSON", async () => {
    const workspace = freshWorkspace();
    const { name: _name, ...nameless } = githubDeployment();
    const missing = await controlPlane("POST", "/v2/deployments", { workspace, body: nameless });
    expect(missing.status).toBe(422);
    expect(missing.body.detail).toEqual([{ type: "missing", loc: ["body", "name"], msg: "Field required" }]);

    const source = await controlPlane("POST", "/v2/deployments", { workspace, body: githubDeployment("x", { source: "gitlab" }) });
    expect(source.status).toBe(422);
    expect(source.body.detail[0]).toMatchObject({ type: "enum", loc: ["body", "source"], input: "gitlab" });
    expect(source.body.detail[0].msg).toBe("Input should be 'github', 'external_docker', 'internal_docker' or 'internal_source'");

    const json = await controlPlane("POST", "/v2/deployments", { workspace, rawBody: '{"name": ' });
    expect(json.status).toBe(422);
    expect(json.body.detail[0]).toMatchObject({ type: "json_invalid", loc: ["body", 0] });

    const list = await controlPlane("GET", "/v2/deployments", { workspace });
    expect(list.body.resources).toEqual([]);
  });

  it.each([
    [
      "github without langgraph_config_path",
      githubDeployment("a", { source_revision_config: { repo_ref: "main" } }),
      ["body", "source_revision_config", "langgraph_config_path"],
      "required for source 'github'",
    ],
    ["github without repo_url", githubDeployment("a", { source_config: {} }), ["body", "source_config", "repo_url"], "repo_url is required"],
    [
      "external_docker without image_uri",
      dockerDeployment({ source_revision_config: {} }),
      ["body", "source_revision_config", "image_uri"],
      "image_uri is required",
    ],
    [
      "external_docker with langgraph_config_path",
      dockerDeployment({ source_revision_config: { image_uri: "i:1", langgraph_config_path: "langgraph.json" } }),
      ["body", "source_revision_config", "langgraph_config_path"],
      "must be null",
    ],
    [
      "a tag with build_on_push",
      githubDeployment("a", {
        source_config: { repo_url: "r", build_on_push: true },
        source_revision_config: { repo_ref: "refs/tags/v1", langgraph_config_path: "l.json" },
      }),
      ["body", "source_config", "build_on_push"],
      "tag",
    ],
    [
      "duplicate secret names",
      githubDeployment("a", {
        secrets: [
          { name: "K", value: "1" },
          { name: "K", value: "2" },
        ],
      }),
      ["body", "secrets", 1, "name"],
      "duplicate secret name 'K'",
    ],
    [
      "a non-uuid integration_id",
      githubDeployment("a", { source_config: { repo_url: "r", integration_id: "nope" } }),
      ["body", "source_config", "integration_id"],
      "valid UUID",
    ],
  ])("answers 422 for %s", async (_case, body, loc, message) => {
    const res = await controlPlane("POST", "/v2/deployments", { workspace: freshWorkspace(), body });
    expect(res.status).toBe(422);
    expect(res.body.detail).toHaveLength(1);
    expect(res.body.detail[0].loc).toEqual(loc);
    expect(res.body.detail[0].msg).toContain(message);
  });

  it("answers 400 for a second deployment with the same name in the workspace", async () => {
    const workspace = freshWorkspace();
    await create(workspace, githubDeployment("twin"));
    const res = await controlPlane("POST", "/v2/deployments", { workspace, body: githubDeployment("twin") });
    expect(res.status).toBe(400);
    expect(res.body.detail).toContain("'twin'");
  });
});

describe("GET /v2/deployments/{deployment_id}", () => {
  it("answers the deployment, 404 naming an unknown id, 422 for a non-uuid", async () => {
    const workspace = freshWorkspace();
    await manualClock(workspace);
    const created = await create(workspace);
    const res = await controlPlane("GET", `/v2/deployments/${created.id}`, { workspace });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(created);

    const unknown = crypto.randomUUID();
    const missing = await controlPlane("GET", `/v2/deployments/${unknown}`, { workspace });
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ detail: `Deployment ID ${unknown} not found.` });

    const bad = await controlPlane("GET", "/v2/deployments/not-a-uuid", { workspace });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0]).toMatchObject({ type: "uuid_parsing", loc: ["path", "deployment_id"], input: "not-a-uuid" });
  });

  it("keeps workspaces apart", async () => {
    const owner = freshWorkspace();
    const other = freshWorkspace();
    const created = await create(owner);
    expect((await controlPlane("GET", `/v2/deployments/${created.id}`, { workspace: other })).status).toBe(404);
    expect((await controlPlane("GET", "/v2/deployments", { workspace: other })).body).toEqual({ resources: [], offset: 0 });
    expect((await controlPlane("PATCH", `/v2/deployments/${created.id}`, { workspace: other, body: {} })).status).toBe(404);
    expect((await controlPlane("DELETE", `/v2/deployments/${created.id}`, { workspace: other })).status).toBe(404);
    expect((await controlPlane("GET", `/v2/deployments/${created.id}`, { workspace: owner })).status).toBe(200);
  });
});

describe("GET /v2/deployments", () => {
  it("pages newest first to the end with the returned offset", async () => {
    const workspace = freshWorkspace();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await create(workspace, githubDeployment(`d${i}`))).id);

    const seen: string[] = [];
    let offset = 0;
    const sizes: number[] = [];
    for (;;) {
      const res = await controlPlane("GET", `/v2/deployments?limit=2&offset=${offset}`, { workspace });
      expect(res.status).toBe(200);
      sizes.push(res.body.resources.length);
      expect(res.body.offset).toBe(offset + res.body.resources.length);
      if (res.body.resources.length === 0) break;
      seen.push(...res.body.resources.map((d: { id: string }) => d.id));
      offset = res.body.offset;
    }
    expect(sizes).toEqual([2, 2, 1, 0]);
    expect(seen).toEqual([...ids].reverse());

    const all = await controlPlane("GET", "/v2/deployments", { workspace });
    expect(all.body.resources).toHaveLength(5);
    expect(all.body.offset).toBe(5);
    expect(JSON.stringify(all.body)).not.toContain(SECRET);
  });

  it.each([
    ["limit=0", { type: "greater_than_equal", loc: ["query", "limit"] }],
    ["limit=101", { type: "less_than_equal", loc: ["query", "limit"], ctx: { le: 100 } }],
    ["limit=ten", { type: "int_parsing", loc: ["query", "limit"] }],
    ["offset=-1", { type: "greater_than_equal", loc: ["query", "offset"] }],
    ["status=BROKEN", { type: "enum", loc: ["query", "status", 0] }],
    [`deployment_ids=${"0".repeat(8)}-0000-0000-0000-000000000000,nope`, { type: "uuid_parsing", loc: ["query", "deployment_ids", 1] }],
    ["deployment_type=huge", { type: "enum", loc: ["query", "deployment_type"] }],
    // The filter takes the document's enum only: serverless deployments are listed as dev.
    ["deployment_type=serverless", { type: "enum", loc: ["query", "deployment_type"], ctx: { expected: "'dev_free', 'dev' or 'prod'" } }],
    ["remote_reconciled=not-a-bool", { type: "bool_parsing", loc: ["query", "remote_reconciled"], input: "not-a-bool" }],
    ["remote_reconciled=", { type: "bool_parsing", loc: ["query", "remote_reconciled"] }],
  ])("answers 422 for %s", async (query, error) => {
    const res = await controlPlane("GET", `/v2/deployments?${query}`, { workspace: freshWorkspace() });
    expect(res.status).toBe(422);
    expect(res.body.detail[0]).toMatchObject(error);
  });

  it("filters by name_contains, status, deployment_ids, deployment_type, image_version and tag_value_ids", async () => {
    const workspace = freshWorkspace();
    const clock = await manualClock(workspace);
    const alpha = await create(workspace, githubDeployment("Alpha-Agent"));
    clock.advance(6 * STEP);
    const beta = await create(workspace, githubDeployment("beta-agent", { source_config: { repo_url: "r", deployment_type: "prod" } }));
    const gamma = await create(workspace, dockerDeployment({ name: "gamma" }));
    const names = async (query: string) => {
      const res = await controlPlane("GET", `/v2/deployments?${query}`, { workspace });
      expect(res.status).toBe(200);
      return res.body.resources.map((d: { name: string }) => d.name);
    };

    expect(await names("name_contains=AGENT")).toEqual(["beta-agent", "Alpha-Agent"]);
    expect(await names("status=READY")).toEqual(["Alpha-Agent"]);
    expect(await names("status=AWAITING_DATABASE,UNUSED")).toEqual(["gamma", "beta-agent"]);
    expect(await names(`deployment_ids=${gamma.id},${alpha.id.toUpperCase()}`)).toEqual(["gamma", "Alpha-Agent"]);
    expect(await names("deployment_type=prod")).toEqual(["beta-agent"]);
    expect(await names("image_version=0.0.0-emulator")).toEqual(["Alpha-Agent"]);
    expect(await names(`tag_value_ids=${crypto.randomUUID()}`)).toEqual([]);
    expect(await names(`name_contains=agent&deployment_ids=${beta.id}`)).toEqual(["beta-agent"]);
  });
});

describe("PATCH /v2/deployments/{deployment_id}", () => {
  it("makes a new latest revision for a new repo_ref, interrupting the one in progress", async () => {
    const workspace = freshWorkspace();
    const clock = await manualClock(workspace);
    const created = await create(workspace);
    clock.advance(2 * STEP);

    const res = await controlPlane("PATCH", `/v2/deployments/${created.id}`, { workspace, body: { source_revision_config: { repo_ref: "release" } } });
    expect(res.status).toBe(200);
    expect(res.body.latest_revision_id).not.toBe(created.latest_revision_id);
    expect(res.body.source_revision_config).toMatchObject({ repo_ref: "release", langgraph_config_path: "langgraph.json" });
    expect(res.body.updated_at).toBe(new Date(clock.now).toISOString());
    expect(res.body.secrets).toEqual([{ name: "OPENAI_API_KEY", value: "********" }]);

    const old = await revisionOf(workspace, created.id, created.latest_revision_id);
    expect(old.body).toMatchObject({ status: "INTERRUPTED", updated_at: new Date(clock.now).toISOString() });
    clock.advance(10 * STEP);
    expect((await revisionOf(workspace, created.id, created.latest_revision_id)).body.status).toBe("INTERRUPTED");
    expect((await revisionOf(workspace, created.id, res.body.latest_revision_id)).body.status).toBe("DEPLOYED");
    expect((await controlPlane("GET", `/v2/deployments/${created.id}`, { workspace })).body.active_revision_id).toBe(res.body.latest_revision_id);
  });

  it("changes other fields without a revision, and redeploys an unchanged ref when it is sent", async () => {
    const workspace = freshWorkspace();
    const created = await create(workspace);
    const quiet = await controlPlane("PATCH", `/v2/deployments/${created.id}`, {
      workspace,
      body: { source_config: { install_command: "pnpm i", repo_url: created.source_config.repo_url } },
    });
    expect(quiet.status).toBe(200);
    expect(quiet.body.latest_revision_id).toBe(created.latest_revision_id);
    expect(quiet.body.source_config).toMatchObject({ install_command: "pnpm i", build_on_push: false });

    const again = await controlPlane("PATCH", `/v2/deployments/${created.id}`, { workspace, body: { source_revision_config: { repo_ref: "main" } } });
    expect(again.body.latest_revision_id).not.toBe(created.latest_revision_id);

    const secrets = await controlPlane("PATCH", `/v2/deployments/${again.body.id}`, {
      workspace,
      body: { secrets: [...again.body.secrets, { name: "EXTRA", value: "x" }] },
    });
    expect(secrets.status).toBe(200);
    expect(secrets.body.latest_revision_id).not.toBe(again.body.latest_revision_id);
    expect(secrets.body.secrets).toEqual([
      { name: "OPENAI_API_KEY", value: "********" },
      { name: "EXTRA", value: "********" },
    ]);
    // Sending the mask back kept the stored value.
    const stored = await runInDurableObject(
      workspaceObject(workspace),
      (_i, state) => state.storage.sql.exec("SELECT secrets FROM deployments WHERE id = ?", created.id).one().secrets,
    );
    expect(JSON.parse(stored as string)).toEqual([
      { name: "OPENAI_API_KEY", value: SECRET },
      { name: "EXTRA", value: "x" },
    ]);
  });

  it.each([
    ["repo_url", { source_config: { repo_url: "https://github.com/acme/other" } }],
    ["integration_id", { source_config: { integration_id: "00000000-0000-4000-8000-000000000001" } }],
    ["deployment_type", { source_config: { deployment_type: "prod" } }],
  ])("answers 400 naming %s, which cannot change", async (field, body) => {
    const workspace = freshWorkspace();
    const created = await create(workspace);
    const res = await controlPlane("PATCH", `/v2/deployments/${created.id}`, { workspace, body });
    expect(res.status).toBe(400);
    expect(res.body.detail).toContain(`source_config.${field} cannot be changed`);
    expect((await controlPlane("GET", `/v2/deployments/${created.id}`, { workspace })).body).toEqual(created);
  });

  it("answers 400 for a new listener_id, 404 for an unknown deployment, 422 for bad input", async () => {
    const workspace = freshWorkspace();
    const docker = await create(workspace, dockerDeployment());
    const listener = await controlPlane("PATCH", `/v2/deployments/${docker.id}`, { workspace, body: { source_config: { listener_id: crypto.randomUUID() } } });
    expect(listener.status).toBe(400);
    expect(listener.body.detail).toContain("source_config.listener_id cannot be changed");
    const image = await controlPlane("PATCH", `/v2/deployments/${docker.id}`, {
      workspace,
      body: { source_revision_config: { image_uri: "registry.example.com/agent:2.0" } },
    });
    expect(image.body.source_revision_config.image_uri).toBe("registry.example.com/agent:2.0");
    expect(image.body.latest_revision_id).not.toBe(docker.latest_revision_id);

    const unknown = crypto.randomUUID();
    const missing = await controlPlane("PATCH", `/v2/deployments/${unknown}`, { workspace, body: {} });
    expect(missing).toMatchObject({ status: 404, body: { detail: `Deployment ID ${unknown} not found.` } });
    const badId = await controlPlane("PATCH", "/v2/deployments/123", { workspace, body: {} });
    expect(badId.body.detail[0]).toMatchObject({ type: "uuid_parsing", loc: ["path", "deployment_id"] });
    const badBody = await controlPlane("PATCH", `/v2/deployments/${docker.id}`, { workspace, body: { source_revision_config: { image_uri: 5 } } });
    expect(badBody.status).toBe(422);
    expect(badBody.body.detail[0]).toMatchObject({ type: "string_type", loc: ["body", "source_revision_config", "image_uri"] });
  });
});

describe("DELETE /v2/deployments/{deployment_id}", () => {
  it("answers 204, removes the revisions, and leaves no alarm that could fail", async () => {
    const workspace = freshWorkspace();
    await manualClock(workspace);
    const created = await create(workspace);
    expect(await scheduledAlarm(workspace)).not.toBeNull();

    const res = await controlPlane("DELETE", `/v2/deployments/${created.id}`, { workspace });
    expect(res.status).toBe(204);
    expect(res.body).toBeUndefined();
    expect((await controlPlane("GET", `/v2/deployments/${created.id}`, { workspace })).status).toBe(404);
    expect((await controlPlane("GET", `/v2/deployments/${created.id}/revisions`, { workspace })).status).toBe(404);
    expect(await storedRevision(workspace, created.latest_revision_id)).toBeUndefined();
    expect(await scheduledAlarm(workspace)).toBeNull();
    expect(await runDurableObjectAlarm(workspaceObject(workspace))).toBe(false);

    const again = await controlPlane("DELETE", `/v2/deployments/${created.id}`, { workspace });
    expect(again).toMatchObject({ status: 404, body: { detail: `Deployment ID ${created.id} not found.` } });
  });

  it("moves the alarm to the remaining deployments' revisions", async () => {
    const workspace = freshWorkspace();
    const clock = await manualClock(workspace);
    const first = await create(workspace);
    clock.advance(STEP / 2);
    const second = await create(workspace);
    expect(await scheduledAlarm(workspace)).toBe(Date.parse(first.created_at) + STEP);
    expect((await controlPlane("DELETE", `/v2/deployments/${first.id}?delete_tracing_project=true`, { workspace })).status).toBe(204);
    expect(await scheduledAlarm(workspace)).toBe(Date.parse(second.created_at) + STEP);
    const bad = await controlPlane("DELETE", `/v2/deployments/${second.id}?delete_tracing_project=perhaps`, { workspace });
    expect(bad.body.detail[0]).toMatchObject({ type: "bool_parsing", loc: ["query", "delete_tracing_project"] });
  });
});

describe("revisions", () => {
  it("lists newest first, pages, and filters by status", async () => {
    const workspace = freshWorkspace();
    const clock = await manualClock(workspace);
    const created = await create(workspace);
    clock.advance(10 * STEP);
    const second = (await controlPlane("PATCH", `/v2/deployments/${created.id}`, { workspace, body: { source_revision_config: { repo_ref: "v2" } } })).body;
    clock.advance(STEP);
    const third = (await controlPlane("PATCH", `/v2/deployments/${created.id}`, { workspace, body: { source_revision_config: { repo_ref: "v3" } } })).body;
    const ids = [third.latest_revision_id, second.latest_revision_id, created.latest_revision_id];

    const all = await controlPlane("GET", `/v2/deployments/${created.id}/revisions`, { workspace });
    expect(all.status).toBe(200);
    expect(all.body.resources.map((r: { id: string }) => r.id)).toEqual(ids);
    expect(all.body.resources.map((r: { status: string }) => r.status)).toEqual(["CREATING", "INTERRUPTED", "DEPLOYED"]);
    expect(all.body.resources.map((r: { source_revision_config: { repo_ref: string } }) => r.source_revision_config.repo_ref)).toEqual(["v3", "v2", "main"]);
    expect(all.body.offset).toBe(3);

    const first = await controlPlane("GET", `/v2/deployments/${created.id}/revisions?limit=2`, { workspace });
    expect(first.body.resources.map((r: { id: string }) => r.id)).toEqual(ids.slice(0, 2));
    const rest = await controlPlane("GET", `/v2/deployments/${created.id}/revisions?limit=2&offset=${first.body.offset}`, { workspace });
    expect(rest.body).toMatchObject({ offset: 3, resources: [{ id: ids[2] }] });

    const filtered = await controlPlane("GET", `/v2/deployments/${created.id}/revisions?status=DEPLOYED,INTERRUPTED`, { workspace });
    expect(filtered.body.resources.map((r: { id: string }) => r.id)).toEqual(ids.slice(1));
    const bad = await controlPlane("GET", `/v2/deployments/${created.id}/revisions?status=DEPLOYED,DONE`, { workspace });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0]).toMatchObject({ type: "enum", loc: ["query", "status", 1] });
    const badLimit = await controlPlane("GET", `/v2/deployments/${created.id}/revisions?limit=101`, { workspace });
    expect(badLimit.body.detail[0]).toMatchObject({ type: "less_than_equal", loc: ["query", "limit"] });
  });

  it("answers 404 naming an unknown deployment or revision, 422 for a non-uuid revision id", async () => {
    const workspace = freshWorkspace();
    const created = await create(workspace);
    const other = await create(workspace);
    const unknown = crypto.randomUUID();

    const list = await controlPlane("GET", `/v2/deployments/${unknown}/revisions`, { workspace });
    expect(list).toMatchObject({ status: 404, body: { detail: `Deployment ID ${unknown} not found.` } });
    const deployment = await revisionOf(workspace, unknown, created.latest_revision_id);
    expect(deployment).toMatchObject({ status: 404, body: { detail: `Deployment ID ${unknown} not found.` } });
    const revision = await revisionOf(workspace, created.id, unknown);
    expect(revision).toMatchObject({ status: 404, body: { detail: `Revision ID ${unknown} not found.` } });
    const foreign = await revisionOf(workspace, created.id, other.latest_revision_id);
    expect(foreign).toMatchObject({ status: 404, body: { detail: `Revision ID ${other.latest_revision_id} not found.` } });
    const bad = await revisionOf(workspace, created.id, "latest");
    expect(bad.body.detail[0]).toMatchObject({ type: "uuid_parsing", loc: ["path", "revision_id"] });
  });
});

describe("revision lifecycle", () => {
  it("walks one status per step, and the deployment becomes READY with the revision active", async () => {
    const workspace = freshWorkspace();
    const clock = await manualClock(workspace);
    const created = await create(workspace);
    const seen: string[] = [];
    for (let step = 0; step < PIPELINE.length; step++) {
      const revision = await revisionOf(workspace, created.id, created.latest_revision_id);
      seen.push(revision.body.status);
      expect(revision.body.updated_at).toBe(new Date(Date.parse(created.created_at) + step * STEP).toISOString());
      const deployment = (await controlPlane("GET", `/v2/deployments/${created.id}`, { workspace })).body;
      expect(deployment.status).toBe(step < PIPELINE.length - 1 ? "AWAITING_DATABASE" : "READY");
      expect(deployment.active_revision_id).toBe(step < PIPELINE.length - 1 ? null : created.latest_revision_id);
      clock.advance(STEP - 1);
      expect((await revisionOf(workspace, created.id, created.latest_revision_id)).body.status).toBe(seen.at(-1));
      clock.advance(1);
    }
    expect(seen).toEqual(PIPELINE);
    const deployed = (await controlPlane("GET", `/v2/deployments/${created.id}`, { workspace })).body;
    expect(deployed).toMatchObject({
      status: "READY",
      image_version: "0.0.0-emulator",
      updated_at: new Date(Date.parse(created.created_at) + 6 * STEP).toISOString(),
    });
  });

  it("persists each transition on the alarm and sets the alarm for the next one", async () => {
    const workspace = freshWorkspace();
    const clock = await manualClock(workspace);
    const created = await create(workspace);
    const start = Date.parse(created.created_at);
    expect(await scheduledAlarm(workspace)).toBe(start + STEP);
    expect(await storedRevision(workspace, created.latest_revision_id)).toEqual({ status: "CREATING", updated_ms: start, next_at: start + STEP });

    clock.advance(STEP);
    expect(await runDurableObjectAlarm(workspaceObject(workspace))).toBe(true);
    expect(await storedRevision(workspace, created.latest_revision_id)).toEqual({ status: "QUEUED", updated_ms: start + STEP, next_at: start + 2 * STEP });
    expect(await scheduledAlarm(workspace)).toBe(start + 2 * STEP);
  });

  it("catches up from a late alarm to the status that is due, with the time it was due", async () => {
    const workspace = freshWorkspace();
    const clock = await manualClock(workspace);
    const created = await create(workspace);
    const start = Date.parse(created.created_at);
    clock.advance(4 * STEP + 10);
    expect(await runDurableObjectAlarm(workspaceObject(workspace))).toBe(true);
    expect(await storedRevision(workspace, created.latest_revision_id)).toEqual({
      status: "AWAITING_DEPLOY",
      updated_ms: start + 4 * STEP,
      next_at: start + 5 * STEP,
    });

    clock.advance(60 * STEP);
    expect(await runDurableObjectAlarm(workspaceObject(workspace))).toBe(true);
    expect(await storedRevision(workspace, created.latest_revision_id)).toEqual({ status: "DEPLOYED", updated_ms: start + 6 * STEP, next_at: null });
    expect(await scheduledAlarm(workspace)).toBeNull();
    const active = await runInDurableObject(workspaceObject(workspace), (_i, state) =>
      state.storage.sql.exec("SELECT active_revision_id, status FROM deployments").one(),
    );
    expect(active).toEqual({ active_revision_id: created.latest_revision_id, status: "READY" });
  });

  it.each([
    ["fail-build", "BUILD_FAILED", 4, "BUILDING"],
    ["fail-deploy", "DEPLOY_FAILED", 6, "DEPLOYING"],
    ["fail-create", "CREATE_FAILED", 1, "CREATING"],
  ])("ends a revision with %s in its ref in %s, and the active revision stays", async (marker, failed, steps, before) => {
    const workspace = freshWorkspace();
    const clock = await manualClock(workspace);
    const created = await create(workspace);
    clock.advance(6 * STEP);
    const patched = (
      await controlPlane("PATCH", `/v2/deployments/${created.id}`, { workspace, body: { source_revision_config: { repo_ref: `feature/${marker}` } } })
    ).body;
    clock.advance((steps - 1) * STEP);
    expect((await revisionOf(workspace, created.id, patched.latest_revision_id)).body.status).toBe(before);
    clock.advance(STEP);
    expect((await revisionOf(workspace, created.id, patched.latest_revision_id)).body.status).toBe(failed);
    clock.advance(20 * STEP);
    expect((await revisionOf(workspace, created.id, patched.latest_revision_id)).body.status).toBe(failed);
    const deployment = (await controlPlane("GET", `/v2/deployments/${created.id}`, { workspace })).body;
    expect(deployment).toMatchObject({ status: "READY", latest_revision_id: patched.latest_revision_id, active_revision_id: created.latest_revision_id });
  });

  it("fails a deploy switched on by image_uri, and a failed first revision leaves the deployment without an active one", async () => {
    const workspace = freshWorkspace();
    const clock = await manualClock(workspace);
    const created = await create(workspace, dockerDeployment({ source_revision_config: { image_uri: "registry.example.com/agent:fail-deploy" } }));
    clock.advance(10 * STEP);
    expect((await revisionOf(workspace, created.id, created.latest_revision_id)).body.status).toBe("DEPLOY_FAILED");
    expect((await controlPlane("GET", `/v2/deployments/${created.id}`, { workspace })).body).toMatchObject({
      status: "AWAITING_DATABASE",
      active_revision_id: null,
      image_version: null,
    });
  });

  it("keeps state and the alarm across a Durable Object restart, and catches up after it", async () => {
    const workspace = freshWorkspace();
    const clock = await manualClock(workspace);
    const created = await create(workspace);
    const start = Date.parse(created.created_at);
    clock.advance(2 * STEP);
    expect((await revisionOf(workspace, created.id, created.latest_revision_id)).body.status).toBe("AWAITING_BUILD");

    await evictDurableObject(workspaceObject(workspace));
    await clock.install();
    expect(await scheduledAlarm(workspace)).toBe(start + 3 * STEP);
    expect(await storedRevision(workspace, created.latest_revision_id)).toMatchObject({ status: "AWAITING_BUILD" });
    clock.advance(5 * STEP);
    const after = (await controlPlane("GET", `/v2/deployments/${created.id}`, { workspace })).body;
    expect(after).toMatchObject({
      ...created,
      status: "READY",
      active_revision_id: created.latest_revision_id,
      updated_at: new Date(start + 6 * STEP).toISOString(),
      image_version: "0.0.0-emulator",
    });
  });
});

describe("a CONTROL_PLANE_REVISION_STEP_MS that is not whole milliseconds", () => {
  it("answers a write that would make a revision with a 500 naming the setting, and stores nothing", async () => {
    const workspace = freshWorkspace();
    const misconfigured = { ...env, CONTROL_PLANE_REVISION_STEP_MS: "half a second" } as Env;
    const misconfiguredFetch = contractChecked((request) => createControlPlane().fetch(request, misconfigured, createExecutionContext()));
    const res = await misconfiguredFetch("https://control-plane.test/v2/deployments", {
      method: "POST",
      headers: { "x-tenant-id": workspace, "x-api-key": workspaceKey(workspace), "content-type": "application/json" },
      body: JSON.stringify(githubDeployment()),
    });
    expect(res.status).toBe(500);
    expect(await res.json()).toEqual({
      detail: "CONTROL_PLANE_REVISION_STEP_MS must be a whole number of milliseconds from 0 to 999999999, got 'half a second'.",
    });
    expect((await controlPlane("GET", "/v2/deployments", { workspace })).body.resources).toEqual([]);
  });
});
