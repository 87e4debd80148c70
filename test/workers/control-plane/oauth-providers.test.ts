// /v2/auth/providers: create, list, get, patch, delete and MCP discovery; refusals store nothing,
// the client secret is kept only as a digest and never answered; workspaces see only their own.
import { runInDurableObject } from "cloudflare:test";
import { controlPlaneEnv } from "../support/emulator-env.ts";
import { describe, expect, it } from "vitest";
import { controlPlane, freshWorkspace } from "./support.ts";
import { CLIENT_SECRET, createProvider, expectNoSecret, ISO_DATE_TIME, providerBody, UUID } from "./oauth-support.ts";

const listProviders = async (workspace: string) => (await controlPlane("GET", "/v2/auth/providers", { workspace })).body;

describe("POST /v2/auth/providers", () => {
  it("answers 200 with the OAuthProviderResponse, without the secret; GET and the listing answer the same", async () => {
    const workspace = freshWorkspace();
    const res = await controlPlane("POST", "/v2/auth/providers", { workspace, body: providerBody("github-dev") });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: expect.stringMatching(UUID),
      organization_id: workspace,
      provider_id: "github-dev",
      name: "GitHub (local dev)",
      client_id: "Iv1.client-id",
      auth_url: "https://github.com/login/oauth/authorize",
      token_url: "https://github.com/login/oauth/access_token",
      uses_pkce: false,
      code_challenge_method: "S256",
      provider_type: null,
      mcp_server_url: null,
      token_endpoint_auth_method: "client_secret_post",
      is_dynamic_client: false,
      created_at: expect.stringMatching(ISO_DATE_TIME),
      updated_at: res.body.created_at,
    });
    expectNoSecret(res.body);
    const fetched = await controlPlane("GET", "/v2/auth/providers/github-dev", { workspace });
    expect(fetched.status).toBe(200);
    expect(fetched.body).toEqual(res.body);
    expect(await listProviders(workspace)).toEqual([res.body]);
  });

  it("keeps the client secret only as its SHA-256 digest", async () => {
    const workspace = freshWorkspace();
    await createProvider(workspace, providerBody("stored"));
    const stub = controlPlaneEnv.CONTROL_PLANE_WORKSPACES.getByName(workspace);
    const stored = await runInDurableObject(stub, (_instance, state) => state.storage.sql.exec("SELECT * FROM oauth_providers").toArray());
    expect(JSON.stringify(stored)).not.toContain(CLIENT_SECRET);
    const digest = [...new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(CLIENT_SECRET)))]
      .map((b) => b.toString(16).padStart(2, "0"))
      .join("");
    expect(stored[0]!.client_secret_digest).toBe(digest);
  });

  it("takes the optional fields as sent", async () => {
    const workspace = freshWorkspace();
    const body = providerBody("slack-app", {
      client_secret: null,
      uses_pkce: true,
      code_challenge_method: "plain",
      provider_type: "slack",
      token_endpoint_auth_method: "client_secret_basic",
      organization_id: "not-mine",
    });
    const created = await createProvider(workspace, body);
    expect(created).toMatchObject({
      uses_pkce: true,
      code_challenge_method: "plain",
      provider_type: "slack",
      token_endpoint_auth_method: "client_secret_basic",
      organization_id: workspace,
    });
  });

  it("answers 409 for a provider_id the workspace has, and keeps the first", async () => {
    const workspace = freshWorkspace();
    const first = await createProvider(workspace, providerBody("dup"));
    const res = await controlPlane("POST", "/v2/auth/providers", { workspace, body: providerBody("dup", { name: "Second" }) });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ detail: "OAuth provider 'dup' already exists." });
    expect(await listProviders(workspace)).toEqual([first]);
  });

  it.each([
    [
      "no body fields",
      {},
      [
        ["body", "provider_id"],
        ["body", "name"],
        ["body", "client_id"],
        ["body", "auth_url"],
        ["body", "token_url"],
      ],
      "missing",
    ],
    ["a provider_id that is not a path segment", providerBody("a/b"), [["body", "provider_id"]], "value_error"],
    ["an auth_url that is not http(s)", providerBody("p", { auth_url: "javascript:alert(1)" }), [["body", "auth_url"]], "value_error"],
    ["a token_url that is not a URL", providerBody("p", { token_url: "token" }), [["body", "token_url"]], "value_error"],
    ["a provider_type outside the enum", providerBody("p", { provider_type: "github" }), [["body", "provider_type"]], "enum"],
    [
      "a token_endpoint_auth_method outside the enum",
      providerBody("p", { token_endpoint_auth_method: "jwt" }),
      [["body", "token_endpoint_auth_method"]],
      "enum",
    ],
    ["a non-boolean uses_pkce", providerBody("p", { uses_pkce: "maybe" }), [["body", "uses_pkce"]], "bool_type"],
    ["a numeric client_secret", providerBody("p", { client_secret: 42 }), [["body", "client_secret"]], "string_type"],
  ])("answers FastAPI's 422 for %s and stores nothing", async (_name, body, locs, type) => {
    const workspace = freshWorkspace();
    const res = await controlPlane("POST", "/v2/auth/providers", { workspace, body });
    expect(res.status).toBe(422);
    expect(res.body.detail.map((e: { loc: unknown }) => e.loc)).toEqual(locs);
    expect(res.body.detail[0].type).toBe(type);
    expect(await listProviders(workspace)).toEqual([]);
  });

  it("answers 422 json_invalid for a body that is not JSON, and 401 without a credential", async () => {
    const workspace = freshWorkspace();
    const bad = await controlPlane("POST", "/v2/auth/providers", { workspace, rawBody: '{"provider_id": ' });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0]).toMatchObject({ type: "json_invalid", loc: ["body", 0] });
    const anonymous = await controlPlane("POST", "/v2/auth/providers", { body: providerBody() });
    expect(anonymous.status).toBe(401);
    expect(await listProviders(workspace)).toEqual([]);
  });
});

describe("workspaces", () => {
  it("see only their own providers, and may reuse a provider_id", async () => {
    const [a, b] = [freshWorkspace(), freshWorkspace()];
    await createProvider(a, providerBody("shared-id"));
    expect(await listProviders(b)).toEqual([]);
    expect((await controlPlane("GET", "/v2/auth/providers/shared-id", { workspace: b })).status).toBe(404);
    expect((await controlPlane("PATCH", "/v2/auth/providers/shared-id", { workspace: b, body: { name: "x" } })).status).toBe(404);
    expect((await controlPlane("DELETE", "/v2/auth/providers/shared-id", { workspace: b })).status).toBe(404);
    const own = await createProvider(b, providerBody("shared-id"));
    expect(own.organization_id).toBe(b);
    expect((await controlPlane("GET", "/v2/auth/providers/shared-id", { workspace: a })).body.organization_id).toBe(a);
  });

  it("by API key: the same key reaches the same providers, another key none", async () => {
    const apiKey = `lsv2_pt_${crypto.randomUUID()}`;
    const created = await controlPlane("POST", "/v2/auth/providers", { apiKey, body: providerBody("by-key") });
    expect(created.status).toBe(200);
    expect((await controlPlane("GET", "/v2/auth/providers", { apiKey })).body).toEqual([created.body]);
    expect((await controlPlane("GET", "/v2/auth/providers", { apiKey: `${apiKey}-other` })).body).toEqual([]);
  });
});

describe("/v2/auth outside the document", () => {
  it("is the app's 404 with a credential and 401 without: only the provider's redirects skip authentication", async () => {
    const workspace = freshWorkspace();
    const unknown = await controlPlane("GET", "/v2/auth/nothing-here", { workspace });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ detail: "Not Found" });
    expect((await controlPlane("GET", "/v2/auth/nothing-here")).status).toBe(401);
    for (const [method, path] of [
      ["GET", "/v2/auth/providers"],
      ["GET", "/v2/auth/tokens"],
      ["GET", `/v2/auth/wait/${crypto.randomUUID()}`],
      ["GET", "/v2/auth/agents/a/connections"],
    ] as const) {
      expect((await controlPlane(method, path)).status, path).toBe(401);
    }
  });
});

describe("GET /v2/auth/providers/{provider_id}", () => {
  it("answers 404 naming an unknown provider", async () => {
    const res = await controlPlane("GET", "/v2/auth/providers/nope", { workspace: freshWorkspace() });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ detail: "OAuth provider 'nope' not found." });
  });
});

describe("PATCH /v2/auth/providers/{provider_id}", () => {
  it("changes the fields sent, leaves absent and null ones, moves updated_at, and never answers the new secret", async () => {
    const workspace = freshWorkspace();
    const created = await createProvider(workspace, providerBody("patch-me"));
    const newSecret = "rotated-secret-9931";
    const res = await controlPlane("PATCH", "/v2/auth/providers/patch-me", {
      workspace,
      body: { name: "Renamed", client_secret: newSecret, uses_pkce: true, auth_url: null, code_challenge_method: "plain" },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      ...created,
      name: "Renamed",
      uses_pkce: true,
      code_challenge_method: "plain",
      updated_at: expect.stringMatching(ISO_DATE_TIME),
    });
    expect(Date.parse(res.body.updated_at)).toBeGreaterThan(Date.parse(created.updated_at));
    expectNoSecret(res.body, newSecret);
    expect((await controlPlane("GET", "/v2/auth/providers/patch-me", { workspace })).body).toEqual(res.body);
    const stub = controlPlaneEnv.CONTROL_PLANE_WORKSPACES.getByName(workspace);
    const stored = await runInDurableObject(stub, (_i, state) => JSON.stringify(state.storage.sql.exec("SELECT * FROM oauth_providers").toArray()));
    expect(stored).not.toContain(newSecret);
  });

  it("answers 404 for an unknown provider and 422 for a bad field, changing nothing", async () => {
    const workspace = freshWorkspace();
    const created = await createProvider(workspace, providerBody("stay"));
    expect((await controlPlane("PATCH", "/v2/auth/providers/other", { workspace, body: { name: "x" } })).status).toBe(404);
    const bad = await controlPlane("PATCH", "/v2/auth/providers/stay", { workspace, body: { name: "x", uses_pkce: "sometimes", token_url: "ftp://x" } });
    expect(bad.status).toBe(422);
    expect(bad.body.detail.map((e: { loc: unknown }) => e.loc)).toEqual([
      ["body", "token_url"],
      ["body", "uses_pkce"],
    ]);
    expect((await controlPlane("GET", "/v2/auth/providers/stay", { workspace })).body).toEqual(created);
  });
});

describe("DELETE /v2/auth/providers/{provider_id}", () => {
  it("answers 200, then the provider is gone (GET and a second DELETE are 404)", async () => {
    const workspace = freshWorkspace();
    await createProvider(workspace, providerBody("gone"));
    const res = await controlPlane("DELETE", "/v2/auth/providers/gone", { workspace });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: "deleted", provider_id: "gone", deleted_tokens: 0 });
    expect((await controlPlane("GET", "/v2/auth/providers/gone", { workspace })).status).toBe(404);
    expect((await controlPlane("DELETE", "/v2/auth/providers/gone", { workspace })).status).toBe(404);
    expect(await listProviders(workspace)).toEqual([]);
  });
});

describe("POST /v2/auth/providers/mcp-discover", () => {
  it("derives the provider from the MCP server URL without reaching it: a dynamic public client with PKCE", async () => {
    const workspace = freshWorkspace();
    const res = await controlPlane("POST", "/v2/auth/providers/mcp-discover", {
      workspace,
      body: { provider_id: "linear-mcp", name: "Linear", mcp_server_url: "https://mcp.linear.example/sse" },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: expect.stringMatching(UUID),
      organization_id: workspace,
      provider_id: "linear-mcp",
      name: "Linear",
      client_id: expect.stringMatching(/^mcp-client-[\w-]{16}$/),
      auth_url: "https://mcp.linear.example/authorize",
      token_url: "https://mcp.linear.example/token",
      uses_pkce: true,
      code_challenge_method: "S256",
      provider_type: null,
      mcp_server_url: "https://mcp.linear.example/sse",
      token_endpoint_auth_method: "none",
      is_dynamic_client: true,
      created_at: expect.stringMatching(ISO_DATE_TIME),
      updated_at: res.body.created_at,
    });
    expect((await controlPlane("GET", "/v2/auth/providers/linear-mcp", { workspace })).body).toEqual(res.body);
  });

  it("answers 409 for a taken provider_id and 422 for a bad server URL or missing field, storing nothing new", async () => {
    const workspace = freshWorkspace();
    const first = await createProvider(workspace, providerBody("taken"));
    const dup = await controlPlane("POST", "/v2/auth/providers/mcp-discover", {
      workspace,
      body: { provider_id: "taken", name: "x", mcp_server_url: "https://x.example/mcp" },
    });
    expect(dup.status).toBe(409);
    const badUrl = await controlPlane("POST", "/v2/auth/providers/mcp-discover", {
      workspace,
      body: { provider_id: "m", name: "x", mcp_server_url: "not a url" },
    });
    expect(badUrl.status).toBe(422);
    expect(badUrl.body.detail[0]).toMatchObject({ type: "value_error", loc: ["body", "mcp_server_url"] });
    const missing = await controlPlane("POST", "/v2/auth/providers/mcp-discover", { workspace, body: { provider_id: "m", name: "x" } });
    expect(missing.status).toBe(422);
    expect(missing.body.detail).toEqual([{ type: "missing", loc: ["body", "mcp_server_url"], msg: "Field required" }]);
    expect(await listProviders(workspace)).toEqual([first]);
  });
});
