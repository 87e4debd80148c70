// The GitHub and Forge GitHub integration listings (/v1/integrations/...), seeded per workspace and
// set through the emulator's admin route; a `github` deployment's integration_id is checked
// against them. Every answer is contract-checked (support.ts).
import { describe, expect, it } from "vitest";
import { FORGE_GITHUB_INTEGRATION, GITHUB_INTEGRATION, SEEDED_INSTALLATIONS } from "../../../emulators/control-plane/integrations/seed.ts";
import { githubDeployment } from "./deployment-support.ts";
import { controlPlane, freshWorkspace } from "./support.ts";

const LISTINGS = [
  ["github", "/v1/integrations/github", GITHUB_INTEGRATION],
  ["forge-github", "/v1/integrations/forge/github", FORGE_GITHUB_INTEGRATION],
] as const;

/** The emulator's admin route for a workspace's listing (any credential reaches it). */
const integrationsSwitch = (method: "GET" | "PUT", workspace: string, kind: string, body?: unknown) =>
  controlPlane(method, `/v2/_emulator/workspaces/${workspace}/integrations/${kind}`, { apiKey: "emulator-admin", body });

const installation = (name: string, repositories: unknown[] = []) => ({
  id: crypto.randomUUID(),
  installation_id: 5000 + Math.floor(Math.random() * 1000),
  name,
  repositories,
});

describe.each(LISTINGS)("the %s listing", (kind, base, seeded) => {
  it("lists the seeded installation, and its repositories", async () => {
    const workspace = freshWorkspace();
    expect(await controlPlane("GET", `${base}/install`, { workspace })).toMatchObject({ status: 200, body: [seeded] });
    const repos = await controlPlane("GET", `${base}/${seeded.id.toUpperCase()}/repos`, { workspace });
    expect(repos.status).toBe(200);
    expect(repos.body).toEqual(SEEDED_INSTALLATIONS[kind][0]!.repositories.map((r) => ({ host_integration_id: seeded.id, ...r })));
  });

  it("is replaced per workspace through the admin route, defaults filled in", async () => {
    const workspace = freshWorkspace();
    const mine = installation("octo", [
      { id: 9, name: "bot" },
      { id: 10, name: "lib", owner: "octo-org", url: "https://github.com/octo-org/lib", default_branch: "trunk" },
    ]);
    const set = await integrationsSwitch("PUT", workspace, kind, [mine]);
    expect(set.status).toBe(200);
    expect(await integrationsSwitch("GET", workspace, kind)).toMatchObject({ body: set.body });
    expect((await controlPlane("GET", `${base}/install`, { workspace })).body).toEqual([{ id: mine.id, installation_id: mine.installation_id, name: "octo" }]);
    expect((await controlPlane("GET", `${base}/${mine.id}/repos`, { workspace })).body).toEqual([
      { host_integration_id: mine.id, id: 9, name: "bot", owner: "octo", url: "https://github.com/octo/bot", default_branch: "main" },
      { host_integration_id: mine.id, id: 10, name: "lib", owner: "octo-org", url: "https://github.com/octo-org/lib", default_branch: "trunk" },
    ]);
    // The seeded one is gone here, and still there in any other workspace.
    expect((await controlPlane("GET", `${base}/${seeded.id}/repos`, { workspace })).status).toBe(404);
    expect((await controlPlane("GET", `${base}/install`, { workspace: freshWorkspace() })).body).toEqual([seeded]);
    // An empty listing is a listing too.
    await integrationsSwitch("PUT", workspace, kind, []);
    expect((await controlPlane("GET", `${base}/install`, { workspace })).body).toEqual([]);
  });

  it("answers 404 for an installation it does not have, 422 for an id that is not a UUID, 401 without credentials", async () => {
    const workspace = freshWorkspace();
    const unknown = crypto.randomUUID();
    const missing = await controlPlane("GET", `${base}/${unknown}/repos`, { workspace });
    expect(missing.status).toBe(404);
    expect(missing.body.detail).toContain(`integration ID ${unknown} not found.`);
    const bad = await controlPlane("GET", `${base}/nope/repos`, { workspace });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0]).toMatchObject({ type: "uuid_parsing", loc: ["path", "integration_id"] });
    expect((await controlPlane("GET", `${base}/install`)).status).toBe(401);
  });
});

describe("the listings are separate", () => {
  it("a GitHub installation is not a Forge one", async () => {
    const workspace = freshWorkspace();
    expect((await controlPlane("GET", `/v1/integrations/forge/github/${GITHUB_INTEGRATION.id}/repos`, { workspace })).status).toBe(404);
    expect((await controlPlane("GET", `/v1/integrations/github/${FORGE_GITHUB_INTEGRATION.id}/repos`, { workspace })).status).toBe(404);
  });
});

describe("the admin route refuses bad listings", () => {
  it.each([
    ["an unknown kind", "gitlab", [], { type: "enum", loc: ["path", "kind"] }],
    ["a non-UUID id", "github", [{ ...installation("a"), id: "x" }], { type: "uuid_parsing", loc: ["body", 0, "id"] }],
    ["a missing name", "github", [{ ...installation("a"), name: undefined }], { type: "missing", loc: ["body", 0, "name"] }],
    [
      "two installations with one id",
      "github",
      [installation("a"), installation("b")].map((i, _n, all) => ({ ...i, id: all[0]!.id })),
      { type: "value_error", loc: ["body", 1, "id"] },
    ],
    [
      "two repositories with one id",
      "github",
      [
        installation("a", [
          { id: 1, name: "x" },
          { id: 1, name: "y" },
        ]),
      ],
      { type: "value_error", loc: ["body", 0, "repositories", 1, "id"] },
    ],
  ])("%s", async (_name, kind, body, error) => {
    const res = await integrationsSwitch("PUT", freshWorkspace(), kind, body);
    expect(res.status).toBe(422);
    expect(res.body.detail[0]).toMatchObject(error);
  });
});

describe("a github deployment's integration_id", () => {
  it("must be one of the workspace's installations (either listing); none at all is fine", async () => {
    const workspace = freshWorkspace();
    for (const integration_id of [GITHUB_INTEGRATION.id, FORGE_GITHUB_INTEGRATION.id, null]) {
      const body = githubDeployment(undefined, { source_config: { integration_id, repo_url: "https://github.com/acme/agent" } });
      expect((await controlPlane("POST", "/v2/deployments", { workspace, body })).status).toBe(201);
    }
    const unknown = crypto.randomUUID();
    const res = await controlPlane("POST", "/v2/deployments", {
      workspace,
      body: githubDeployment(undefined, { source_config: { integration_id: unknown, repo_url: "https://github.com/acme/agent" } }),
    });
    expect(res.status).toBe(400);
    expect(res.body.detail).toContain(`GitHub integration ID ${unknown} not found`);
  });

  it("is checked against the workspace's current listing", async () => {
    const workspace = freshWorkspace();
    await integrationsSwitch("PUT", workspace, "github", []);
    const res = await controlPlane("POST", "/v2/deployments", { workspace, body: githubDeployment() });
    expect(res.status).toBe(400);
    const mine = installation("octo");
    await integrationsSwitch("PUT", workspace, "github", [mine]);
    const body = githubDeployment(undefined, { source_config: { integration_id: mine.id, repo_url: "https://github.com/octo/bot" } });
    expect((await controlPlane("POST", "/v2/deployments", { workspace, body })).status).toBe(201);
  });
});
