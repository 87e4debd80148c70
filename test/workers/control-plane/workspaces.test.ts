// Workspace plans and the emulator switch that sets them: PUT/GET /v2/_emulator/workspaces/{id}.
import { describe, expect, it } from "vitest";
import { defaultWorkspaceId } from "../../../emulators/control-plane/auth.ts";
import { controlPlane, freshWorkspace } from "./support.ts";

const PLUS_WORKSPACE = "00000000-0000-4000-8000-00000000000b";
const SELF_HOSTED_WORKSPACE = "00000000-0000-4000-8000-0000000000e5";
const ISO_DATE_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;

const switchPath = (workspace: string) => `/v2/_emulator/workspaces/${workspace}`;
const listener = () => ({ compute_type: "k8s", compute_id: `cluster-${crypto.randomUUID()}`, compute_config: { k8s_namespaces: null } });
// The caller is a workspace of its own: the switch acts on the path's workspace.
const caller = { workspace: freshWorkspace() };

describe("GET /v2/_emulator/workspaces/{workspace_id}", () => {
  it("answers a workspace never seen before with the self-hosted enterprise plan", async () => {
    const workspace = freshWorkspace();
    const res = await controlPlane("GET", switchPath(workspace), caller);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: workspace, plan: "enterprise-self-hosted", created_at: expect.stringMatching(ISO_DATE_TIME) });
  });

  it.each([
    [PLUS_WORKSPACE, "plus"],
    [SELF_HOSTED_WORKSPACE, "enterprise-self-hosted"],
  ])("answers the seeded workspace %s with plan %s", async (workspace, plan) => {
    const res = await controlPlane("GET", switchPath(workspace), caller);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: workspace, plan });
  });

  it("answers 401 without credentials", async () => {
    const res = await controlPlane("GET", switchPath(freshWorkspace()));
    expect(res.status).toBe(401);
    expect(typeof res.body.detail).toBe("string");
  });

  it("answers 422 uuid_parsing for a workspace id that is not a UUID", async () => {
    const res = await controlPlane("GET", switchPath("workspace-1"), caller);
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([expect.objectContaining({ loc: ["path", "workspace_id"], type: "uuid_parsing", input: "workspace-1" })]);
  });
});

describe("PUT /v2/_emulator/workspaces/{workspace_id}", () => {
  it("sets the plan, answers the workspace, and GET reads it back; created_at stays", async () => {
    const workspace = freshWorkspace();
    const first = await controlPlane("PUT", switchPath(workspace), { ...caller, body: { plan: "plus" } });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ id: workspace, plan: "plus", created_at: expect.stringMatching(ISO_DATE_TIME) });
    expect((await controlPlane("GET", switchPath(workspace), caller)).body).toEqual(first.body);
    const second = await controlPlane("PUT", switchPath(workspace), { ...caller, body: { plan: "enterprise" } });
    expect(second.body).toEqual({ ...first.body, plan: "enterprise" });
  });

  it("normalizes an upper-case workspace id to the one X-Tenant-Id reaches", async () => {
    const workspace = freshWorkspace();
    const res = await controlPlane("PUT", switchPath(workspace.toUpperCase()), { ...caller, body: { plan: "developer" } });
    expect(res.body.id).toBe(workspace);
    expect((await controlPlane("GET", "/v2/listeners", { workspace })).status).toBe(403);
  });

  it.each([
    ["developer", 403],
    ["plus", 403],
    ["enterprise", 403],
    ["enterprise-self-hosted", 201],
  ])("gates listeners by plan: %s -> POST /v2/listeners %i", async (plan, status) => {
    const workspace = freshWorkspace();
    expect((await controlPlane("PUT", switchPath(workspace), { ...caller, body: { plan } })).status).toBe(200);
    const res = await controlPlane("POST", "/v2/listeners", { workspace, body: listener() });
    expect(res.status).toBe(status);
    if (status === 403) {
      expect(res.body.detail).toContain(`'${workspace}'`);
      expect(res.body.detail).toContain("only allowed for LangSmith organizations with self-hosted enterprise plans");
    }
  });

  it("acts on the path's workspace, not the caller's", async () => {
    const target = freshWorkspace();
    const self = freshWorkspace();
    await controlPlane("PUT", switchPath(target), { workspace: self, body: { plan: "plus" } });
    expect((await controlPlane("POST", "/v2/listeners", { workspace: target, body: listener() })).status).toBe(403);
    expect((await controlPlane("POST", "/v2/listeners", { workspace: self, body: listener() })).status).toBe(201);
    expect((await controlPlane("GET", switchPath(self), { workspace: self })).body.plan).toBe("enterprise-self-hosted");
  });

  it("reaches an API key's default workspace too, by its derived id", async () => {
    const apiKey = `lsv2_${crypto.randomUUID()}`;
    expect((await controlPlane("GET", "/v2/listeners", { apiKey })).status).toBe(200);
    const workspace = await defaultWorkspaceId(`api-key:${apiKey}`);
    await controlPlane("PUT", switchPath(workspace), { apiKey, body: { plan: "plus" } });
    const res = await controlPlane("GET", "/v2/listeners", { apiKey });
    expect(res.status).toBe(403);
    expect(res.body.detail).toContain(workspace);
  });

  it.each([
    ["an unknown plan", { plan: "gold" }, "enum", ["body", "plan"]],
    ["a missing plan", {}, "missing", ["body", "plan"]],
    ["a plan that is not a string", { plan: 3 }, "enum", ["body", "plan"]],
  ])("answers 422 for %s and leaves the plan alone", async (_, body, type, loc) => {
    const workspace = freshWorkspace();
    const res = await controlPlane("PUT", switchPath(workspace), { ...caller, body });
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([expect.objectContaining({ type, loc })]);
    expect((await controlPlane("GET", switchPath(workspace), caller)).body.plan).toBe("enterprise-self-hosted");
  });

  it("lists the allowed plans in the enum error", async () => {
    const res = await controlPlane("PUT", switchPath(freshWorkspace()), { ...caller, body: { plan: "gold" } });
    expect(res.body.detail[0].msg).toBe("Input should be 'developer', 'plus', 'enterprise' or 'enterprise-self-hosted'");
  });

  it("answers 422 json_invalid for malformed JSON and uuid_parsing for a bad path id", async () => {
    const malformed = await controlPlane("PUT", switchPath(freshWorkspace()), { ...caller, rawBody: "{plan:" });
    expect(malformed.status).toBe(422);
    expect(malformed.body.detail[0]).toMatchObject({ type: "json_invalid", loc: ["body", 0] });
    const badId = await controlPlane("PUT", switchPath("nope"), { ...caller, body: { plan: "plus" } });
    expect(badId.status).toBe(422);
    expect(badId.body.detail[0]).toMatchObject({ type: "uuid_parsing", loc: ["path", "workspace_id"] });
  });
});
