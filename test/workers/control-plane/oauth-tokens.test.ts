// Tokens (list, exists, metadata, delete one and all, Slack workspace tokens) and agent
// connections. No answer here ever holds a token's value.
import { describe, expect, it } from "vitest";
import { controlPlane, freshWorkspace } from "./support.ts";
import { authenticate, createProvider, expectNoSecret, grantToken, ISO_DATE_TIME, providerBody, UUID } from "./oauth-support.ts";

const tokens = async (workspace: string, query = "") => (await controlPlane("GET", `/v2/auth/tokens${query}`, { workspace })).body;
const exists = async (workspace: string, provider: string) => (await controlPlane("GET", `/v2/auth/tokens/exists?provider_id=${provider}`, { workspace })).body;

async function setUp(...providers: string[]) {
  const workspace = freshWorkspace();
  for (const id of providers) await createProvider(workspace, providerBody(id));
  return workspace;
}

describe("GET /v2/auth/tokens and /v2/auth/tokens/exists", () => {
  it("list OAuthTokenSummary items, by provider when asked, with no token value", async () => {
    const workspace = await setUp("github", "google");
    const gh = await grantToken(workspace, "github");
    const go = await grantToken(workspace, "google");
    const all = await tokens(workspace);
    expect(all).toHaveLength(2);
    expect(all[0]).toEqual({
      id: gh.tokenId,
      provider_id: "github",
      provider_account_label: null,
      scopes: ["repo"],
      expires_at: null,
      is_default: true,
      created_at: expect.stringMatching(ISO_DATE_TIME),
      updated_at: all[0].created_at,
    });
    expectNoSecret(all, gh.token, go.token);
    expect((await tokens(workspace, "?provider_id=google")).map((t: { id: string }) => t.id)).toEqual([go.tokenId]);
    expect(await tokens(workspace, "?provider_id=none")).toEqual([]);
    expect(await exists(workspace, "github")).toEqual({ has_token: true });
    expect(await exists(workspace, "none")).toEqual({ has_token: false });
    expect(await tokens(freshWorkspace())).toEqual([]);
    expect(await exists(freshWorkspace(), "github")).toEqual({ has_token: false });
  });

  it("exists needs provider_id (422)", async () => {
    const res = await controlPlane("GET", "/v2/auth/tokens/exists", { workspace: freshWorkspace() });
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([{ type: "missing", loc: ["query", "provider_id"], msg: "Field required" }]);
  });
});

describe("PATCH /v2/auth/tokens/{token_id}/metadata", () => {
  it("sets and clears the label, moves the default, and answers the summary", async () => {
    const workspace = await setUp("github");
    const first = await grantToken(workspace, "github");
    const started = await authenticate(workspace, { provider: "github", scopes: ["repo"], force_new: true, is_default: false });
    await controlPlane("GET", new URL(started.body.url).pathname + new URL(started.body.url).search);
    const second = (await tokens(workspace)).find((t: { id: string }) => t.id !== first.tokenId);
    expect(second.is_default).toBe(false);

    const labelled = await controlPlane("PATCH", `/v2/auth/tokens/${first.tokenId}/metadata`, { workspace, body: { provider_account_label: "octocat" } });
    expect(labelled.status).toBe(200);
    expect(labelled.body).toMatchObject({ id: first.tokenId, provider_account_label: "octocat", is_default: true });
    expect(Date.parse(labelled.body.updated_at)).toBeGreaterThan(Date.parse(labelled.body.created_at));
    expectNoSecret(labelled.body, first.token);

    const promoted = await controlPlane("PATCH", `/v2/auth/tokens/${second.id}/metadata`, { workspace, body: { is_default: true } });
    expect(promoted.body.is_default).toBe(true);
    const listed = await tokens(workspace);
    expect(
      listed.map((t: { id: string; is_default: boolean; provider_account_label: string | null }) => [t.id, t.is_default, t.provider_account_label]),
    ).toEqual([
      [first.tokenId, false, "octocat"],
      [second.id, true, null],
    ]);
    const cleared = await controlPlane("PATCH", `/v2/auth/tokens/${first.tokenId}/metadata`, { workspace, body: { provider_account_label: null } });
    expect(cleared.body.provider_account_label).toBeNull();
  });

  it("answers 404 for an unknown token (any spelling) and 422 for a bad field, changing nothing", async () => {
    const workspace = await setUp("github");
    const { tokenId } = await grantToken(workspace, "github");
    const before = await tokens(workspace);
    for (const id of [crypto.randomUUID(), "not-a-uuid"]) {
      const res = await controlPlane("PATCH", `/v2/auth/tokens/${id}/metadata`, { workspace, body: { provider_account_label: "x" } });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ detail: `OAuth token '${id}' not found.` });
    }
    const bad = await controlPlane("PATCH", `/v2/auth/tokens/${tokenId}/metadata`, { workspace, body: { provider_account_label: 7, is_default: "no" } });
    expect(bad.status).toBe(422);
    expect(bad.body.detail.map((e: { loc: unknown; type: string }) => [e.loc, e.type])).toEqual([
      [["body", "provider_account_label"], "string_type"],
      [["body", "is_default"], "bool_type"],
    ]);
    expect((await controlPlane("PATCH", `/v2/auth/tokens/${tokenId}/metadata`, { workspace: freshWorkspace(), body: {} })).status).toBe(404);
    expect(await tokens(workspace)).toEqual(before);
  });
});

describe("DELETE /v2/auth/tokens/{token_id} and DELETE /v2/auth/tokens", () => {
  it("deletes one token (204, then 404) and its agent connections; authenticate then starts again", async () => {
    const workspace = await setUp("github");
    const { tokenId } = await grantToken(workspace, "github");
    await controlPlane("POST", "/v2/auth/agents/agent-1/connections", { workspace, body: { oauth_token_id: tokenId } });
    expect((await controlPlane("DELETE", `/v2/auth/tokens/${tokenId}`, { workspace: freshWorkspace() })).status).toBe(404);
    const res = await controlPlane("DELETE", `/v2/auth/tokens/${tokenId}`, { workspace });
    expect(res.status).toBe(204);
    expect((await controlPlane("DELETE", `/v2/auth/tokens/${tokenId}`, { workspace })).status).toBe(404);
    expect(await tokens(workspace)).toEqual([]);
    expect((await controlPlane("GET", "/v2/auth/agents/agent-1/connections", { workspace })).body).toEqual({ data: [] });
    expect((await authenticate(workspace, { provider: "github", scopes: ["repo"] })).body.status).toBe("pending");
  });

  it("deletes every token of the provider, and only of that provider", async () => {
    const workspace = await setUp("github", "google");
    await grantToken(workspace, "github", { user_id: "a" });
    await grantToken(workspace, "github", { user_id: "b", agent_id: "agent-9" });
    const google = await grantToken(workspace, "google");
    const res = await controlPlane("DELETE", "/v2/auth/tokens?provider_id=github", { workspace });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: "deleted", provider_id: "github", deleted_tokens: 2 });
    expect(await exists(workspace, "github")).toEqual({ has_token: false });
    expect((await tokens(workspace)).map((t: { id: string }) => t.id)).toEqual([google.tokenId]);
    const missing = await controlPlane("DELETE", "/v2/auth/tokens", { workspace });
    expect(missing.status).toBe(422);
    expect(missing.body.detail[0]).toMatchObject({ type: "missing", loc: ["query", "provider_id"] });
    expect(await tokens(workspace)).toHaveLength(1);
  });
});

describe("Slack workspace tokens", () => {
  it("exist while a Slack provider has tokens; DELETE revokes them all and leaves the rest", async () => {
    const workspace = freshWorkspace();
    await createProvider(workspace, providerBody("slack-bot", { provider_type: "slack" }));
    await createProvider(workspace, providerBody("github"));
    const slackExists = () => controlPlane("GET", "/v2/auth/tokens/workspace/slack/exists", { workspace });
    expect((await slackExists()).body).toEqual({ has_token: false });
    await grantToken(workspace, "github");
    expect((await slackExists()).body).toEqual({ has_token: false });
    const slack = await grantToken(workspace, "slack-bot", { user_id: "U1" });
    await grantToken(workspace, "slack-bot", { user_id: "U2" });
    expect((await slackExists()).body).toEqual({ has_token: true });
    expect((await controlPlane("GET", "/v2/auth/tokens/workspace/slack/exists", { workspace: freshWorkspace() })).body).toEqual({ has_token: false });

    const res = await controlPlane("DELETE", "/v2/auth/tokens/workspace/slack", { workspace });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: "revoked", revoked_tokens: 2 });
    expectNoSecret(res.body, slack.token);
    expect((await slackExists()).body).toEqual({ has_token: false });
    expect((await tokens(workspace)).map((t: { provider_id: string }) => t.provider_id)).toEqual(["github"]);
    expect((await controlPlane("DELETE", "/v2/auth/tokens/workspace/slack", { workspace })).body.revoked_tokens).toBe(0);
  });
});

describe("agent connections", () => {
  it("connect an agent to a token (201), list them, and let authenticate answer for the agent at once", async () => {
    const workspace = await setUp("github");
    const { token, tokenId } = await grantToken(workspace, "github", { user_id: "u" });
    await controlPlane("PATCH", `/v2/auth/tokens/${tokenId}/metadata`, { workspace, body: { provider_account_label: "octocat" } });
    expect((await authenticate(workspace, { provider: "github", scopes: ["repo"], user_id: "u", agent_id: "agent-1" })).body.status).toBe("pending");

    const created = await controlPlane("POST", "/v2/auth/agents/agent-1/connections", { workspace, body: { oauth_token_id: tokenId } });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.stringMatching(UUID),
      agent_id: "agent-1",
      oauth_token_id: tokenId,
      provider_id: "github",
      provider_account_label: "octocat",
      scopes: ["repo"],
      expires_at: null,
      created_by: workspace,
      created_at: expect.stringMatching(ISO_DATE_TIME),
    });
    expectNoSecret(created.body, token);
    const listed = await controlPlane("GET", "/v2/auth/agents/agent-1/connections", { workspace });
    expect(listed.body).toEqual({ data: [created.body] });
    expect((await controlPlane("GET", "/v2/auth/agents/agent-2/connections", { workspace })).body).toEqual({ data: [] });
    expect((await controlPlane("GET", "/v2/auth/agents/agent-1/connections", { workspace: freshWorkspace() })).body).toEqual({ data: [] });

    const forAgent = await authenticate(workspace, { provider: "github", scopes: ["repo"], agent_id: "agent-1" });
    expect(forAgent.body).toMatchObject({ status: "completed", token });
  });

  it("answers 409 for a second connection to the same token, 404 for an unknown token, 422 without one", async () => {
    const workspace = await setUp("github");
    const { tokenId } = await grantToken(workspace, "github");
    const first = await controlPlane("POST", "/v2/auth/agents/a/connections", { workspace, body: { oauth_token_id: tokenId } });
    const dup = await controlPlane("POST", "/v2/auth/agents/a/connections", { workspace, body: { oauth_token_id: tokenId } });
    expect(dup.status).toBe(409);
    expect(dup.body).toEqual({ detail: `Agent 'a' is already connected to OAuth token '${tokenId}'.` });
    const unknown = await controlPlane("POST", "/v2/auth/agents/a/connections", { workspace, body: { oauth_token_id: "nope" } });
    expect(unknown.status).toBe(404);
    const stranger = await controlPlane("POST", "/v2/auth/agents/a/connections", { workspace: freshWorkspace(), body: { oauth_token_id: tokenId } });
    expect(stranger.status).toBe(404);
    const bad = await controlPlane("POST", "/v2/auth/agents/a/connections", { workspace, body: { oauth_token_id: 5 } });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0]).toMatchObject({ type: "string_type", loc: ["body", "oauth_token_id"] });
    expect((await controlPlane("GET", "/v2/auth/agents/a/connections", { workspace })).body).toEqual({ data: [first.body] });
  });

  it("removes a connection (204), then 404; another agent's id is 404 and removes nothing", async () => {
    const workspace = await setUp("github");
    const { tokenId } = await grantToken(workspace, "github");
    const created = (await controlPlane("POST", "/v2/auth/agents/a/connections", { workspace, body: { oauth_token_id: tokenId } })).body;
    const wrongAgent = await controlPlane("DELETE", `/v2/auth/agents/b/connections/${created.id}`, { workspace });
    expect(wrongAgent.status).toBe(404);
    expect(wrongAgent.body).toEqual({ detail: `Connection '${created.id}' not found for agent 'b'.` });
    expect((await controlPlane("DELETE", `/v2/auth/agents/a/connections/${created.id}`, { workspace: freshWorkspace() })).status).toBe(404);
    const res = await controlPlane("DELETE", `/v2/auth/agents/a/connections/${created.id}`, { workspace });
    expect(res.status).toBe(204);
    expect((await controlPlane("DELETE", `/v2/auth/agents/a/connections/${created.id}`, { workspace })).status).toBe(404);
    expect((await controlPlane("GET", "/v2/auth/agents/a/connections", { workspace })).body).toEqual({ data: [] });
    expect(await tokens(workspace)).toHaveLength(1);
  });
});
