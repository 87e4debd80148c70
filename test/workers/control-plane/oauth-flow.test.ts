// The authorization flow: POST /v2/auth/authenticate, the user's step (a credential-less GET of
// the answered URL, as a browser follows it; or the setup route; or the frontend's POST callback),
// and GET /v2/auth/wait/{auth_id}. The token comes back from authenticate and wait only.
import { runInDurableObject } from "cloudflare:test";
import { controlPlaneEnv } from "../support/emulator-env.ts";
import { describe, expect, it } from "vitest";
import type { ControlPlaneWorkspace } from "../../../emulators/control-plane/workspace-object.ts";
import { CONTROL_PLANE_URL, controlPlane, freshWorkspace } from "./support.ts";
import { authenticate, createProvider, expectNoSecret, follow, grantToken, providerBody, UUID } from "./oauth-support.ts";

const TOKEN = /^emu_oauth_[\w-]{43}$/;
const authWait = (workspace: string, authId: string, timeout = 0) => controlPlane("GET", `/v2/auth/wait/${authId}?timeout=${timeout}`, { workspace });

async function setUp(providerId = "github") {
  const workspace = freshWorkspace();
  await createProvider(workspace, providerBody(providerId));
  return workspace;
}

describe("POST /v2/auth/authenticate, then the user's step, then wait", () => {
  it("starts a pending authorization whose URL, followed without a credential, grants the token wait answers", async () => {
    const workspace = await setUp();
    const started = await authenticate(workspace, { provider: "github", scopes: ["repo", "read:user"], user_id: "user-1" });
    expect(started.status).toBe(200);
    expect(started.body).toEqual({
      status: "pending",
      url: expect.any(String),
      auth_id: expect.stringMatching(UUID),
      token: null,
      user_id: "user-1",
      metadata: null,
    });
    const url = new URL(started.body.url);
    expect(url.origin + url.pathname).toBe(`${CONTROL_PLANE_URL}/v2/auth/callback/github`);
    expect(url.searchParams.get("state")).toBe(started.body.auth_id);
    expect(url.searchParams.get("code")).toMatch(/^[\w-]{43}$/);

    expect((await authWait(workspace, started.body.auth_id)).body).toEqual({ status: "pending", token: null });
    const page = await follow(started.body.url);
    expect(page.status).toBe(200);
    expect(page.body).toEqual({ status: "completed", auth_id: started.body.auth_id, provider_id: "github", message: expect.any(String) });

    const done = await authWait(workspace, started.body.auth_id);
    expect(done.status).toBe(200);
    expect(done.body).toEqual({ status: "completed", token: expect.stringMatching(TOKEN) });
    expectNoSecret(page.body, done.body.token);
    // Waiting again answers the same.
    expect((await authWait(workspace, started.body.auth_id)).body).toEqual(done.body);
  });

  it("answers completed at once when the user already has a token with the scopes; more scopes or force_new start again", async () => {
    const workspace = await setUp();
    const { token, tokenId } = await grantToken(workspace, "github", { user_id: "u" });
    const again = await authenticate(workspace, { provider: "github", scopes: ["repo"], user_id: "u" });
    expect(again.body).toEqual({ status: "completed", url: null, auth_id: null, token, user_id: "u", metadata: { token_id: tokenId } });
    expect((await authenticate(workspace, { provider: "github", scopes: [], user_id: "u" })).body.token).toBe(token);
    expect((await authenticate(workspace, { provider: "github", scopes: ["repo", "admin:org"], user_id: "u" })).body.status).toBe("pending");
    expect((await authenticate(workspace, { provider: "github", scopes: ["repo"], user_id: "u", force_new: true })).body.status).toBe("pending");
    // Another user, or the same user for an agent, has no token yet.
    expect((await authenticate(workspace, { provider: "github", scopes: ["repo"], user_id: "v" })).body.status).toBe("pending");
    expect((await authenticate(workspace, { provider: "github", scopes: ["repo"], user_id: "u", agent_id: "agent-1" })).body.status).toBe("pending");
  });

  it("answers the token named by token_id; 404 for an unknown one, 400 for another provider's", async () => {
    const workspace = await setUp();
    await createProvider(workspace, providerBody("google"));
    const { token, tokenId } = await grantToken(workspace, "github");
    const named = await authenticate(workspace, { provider: "github", scopes: ["anything"], token_id: tokenId.toUpperCase() });
    expect(named.body).toMatchObject({ status: "completed", token });
    const unknown = crypto.randomUUID();
    const missing = await authenticate(workspace, { provider: "github", scopes: [], token_id: unknown });
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ detail: `OAuth token '${unknown}' not found.` });
    const other = await authenticate(workspace, { provider: "google", scopes: [], token_id: tokenId });
    expect(other.status).toBe(400);
    expectNoSecret(other.body, token);
  });

  it("answers 404 for an unknown provider and 422 for a bad body, starting nothing", async () => {
    const workspace = await setUp();
    const unknown = await authenticate(workspace, { provider: "nope", scopes: [] });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ detail: "OAuth provider 'nope' not found." });
    const bad = await authenticate(workspace, { provider: "github", scopes: "repo", token_id: "not-a-uuid", force_new: "yes" });
    expect(bad.status).toBe(422);
    expect(bad.body.detail.map((e: { loc: unknown; type: string }) => [e.loc, e.type])).toEqual([
      [["body", "scopes"], "list_type"],
      [["body", "force_new"], "bool_type"],
      [["body", "token_id"], "uuid_parsing"],
    ]);
    const missing = await authenticate(workspace, {});
    expect(missing.body.detail.map((e: { loc: unknown }) => e.loc)).toEqual([
      ["body", "provider"],
      ["body", "scopes"],
    ]);
    const stub = controlPlaneEnv.CONTROL_PLANE_WORKSPACES.getByName(workspace);
    expect(await runInDurableObject(stub, (_i, state) => state.storage.sql.exec("SELECT count(*) AS n FROM oauth_flows").one().n)).toBe(0);
  });

  it("points the URL at the gateway the caller came through (X-Forwarded-Host/-Proto)", async () => {
    const workspace = await setUp();
    const started = await controlPlane("POST", "/v2/auth/authenticate", {
      workspace,
      body: { provider: "github", scopes: [] },
      headers: { "x-forwarded-host": "gateway.example:8787", "x-forwarded-proto": "http" },
    });
    expect(started.body.url).toMatch(/^http:\/\/gateway\.example:8787\/v2\/auth\/callback\/github\?/);
    const spoofed = await controlPlane("POST", "/v2/auth/authenticate", {
      workspace,
      body: { provider: "github", scopes: [], force_new: true },
      headers: { "x-forwarded-host": "evil.example/path?x=", "x-forwarded-proto": "https" },
    });
    expect(new URL(spoofed.body.url).origin).toBe(CONTROL_PLANE_URL);
  });
});

describe("GET /v2/auth/wait/{auth_id}", () => {
  it("holds the request until the user's step completes it (long poll)", async () => {
    const workspace = await setUp();
    const started = await authenticate(workspace, { provider: "github", scopes: [] });
    // A wait that no timer ends: only the user's step can answer it. A wait asks for its timer
    // once it is held, and cancels it when it ends: that is how this test knows what is held.
    const stub = controlPlaneEnv.CONTROL_PLANE_WORKSPACES.getByName(workspace);
    let held = 0;
    const onHeld = new Set<() => void>();
    await runInDurableObject(stub, (instance: ControlPlaneWorkspace) => {
      instance.oauth().startTimer = () => {
        held++;
        for (const told of onHeld) told();
        return () => void held--;
      };
    });
    const waiting = authWait(workspace, started.body.auth_id, 30);
    // The wait is held in the workspace's object before the user's step, so it is the step that
    // wakes it (awaited inside the object, where the wait's timer is asked for: no asking again).
    await runInDurableObject(stub, () => new Promise<void>((resolve) => (held >= 1 ? resolve() : onHeld.add(resolve))));
    expect((await follow(started.body.url)).status).toBe(200);
    expect((await waiting).body).toEqual({ status: "completed", token: expect.stringMatching(TOKEN) });
    expect(held).toBe(0);
  });

  it("answers timeout when the wait runs out, not_found for an unknown id or another workspace's", async () => {
    const workspace = await setUp();
    const started = await authenticate(workspace, { provider: "github", scopes: [] });
    // Timers that fire at once, recording the wait they were asked for.
    const asked: number[] = [];
    await runInDurableObject(controlPlaneEnv.CONTROL_PLANE_WORKSPACES.getByName(workspace), (instance: ControlPlaneWorkspace) => {
      instance.oauth().startTimer = (fire, ms) => {
        asked.push(ms);
        queueMicrotask(fire);
        return () => {};
      };
    });
    expect((await authWait(workspace, started.body.auth_id, 1)).body).toEqual({ status: "timeout", token: null });
    expect((await authWait(workspace, started.body.auth_id, 3600)).body).toEqual({ status: "timeout", token: null });
    expect((await controlPlane("GET", `/v2/auth/wait/${started.body.auth_id}`, { workspace })).body).toEqual({ status: "timeout", token: null });
    expect(asked).toEqual([1000, 60_000, 30_000]);
    expect((await authWait(workspace, crypto.randomUUID(), 5)).body).toEqual({ status: "not_found", token: null });
    expect((await authWait(freshWorkspace(), started.body.auth_id, 5)).body).toEqual({ status: "not_found", token: null });
    expect((await authWait(workspace, started.body.auth_id, -3)).body).toEqual({ status: "pending", token: null });
  });

  it("answers 422 for a timeout that is not an integer", async () => {
    const workspace = await setUp();
    const res = await controlPlane("GET", `/v2/auth/wait/${crypto.randomUUID()}?timeout=1.5`, { workspace });
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([
      { type: "int_parsing", loc: ["query", "timeout"], msg: "Input should be a valid integer, unable to parse string as an integer", input: "1.5" },
    ]);
  });

  it("forgets an authorization after 10 minutes: wait is not_found and its URL no longer works", async () => {
    const workspace = await setUp();
    const started = await authenticate(workspace, { provider: "github", scopes: [] });
    const later = Date.now() + 10 * 60_000 + 1;
    const stub = controlPlaneEnv.CONTROL_PLANE_WORKSPACES.getByName(workspace);
    await runInDurableObject(stub, (instance: ControlPlaneWorkspace) => {
      instance.oauth().clock = () => later;
    });
    expect((await authWait(workspace, started.body.auth_id)).body).toEqual({ status: "not_found", token: null });
    expect((await follow(started.body.url)).status).toBe(400);
  });
});

describe("the user's step", () => {
  it("works once: the same URL again is 400, and the token stays the one granted", async () => {
    const workspace = await setUp();
    const started = await authenticate(workspace, { provider: "github", scopes: [] });
    expect((await follow(started.body.url)).status).toBe(200);
    const token = (await authWait(workspace, started.body.auth_id)).body.token;
    const replay = await follow(started.body.url);
    expect(replay.status).toBe(400);
    expect(replay.body).toEqual({ detail: "Invalid or expired OAuth state: start again with POST /v2/auth/authenticate." });
    expect((await authWait(workspace, started.body.auth_id)).body.token).toBe(token);
    expect((await controlPlane("GET", "/v2/auth/tokens", { workspace })).body).toHaveLength(1);
  });

  it("refuses a wrong code, another provider's path, a state that is no auth id, and missing parameters, granting nothing", async () => {
    const workspace = await setUp();
    await createProvider(workspace, providerBody("google"));
    const started = await authenticate(workspace, { provider: "github", scopes: [] });
    const url = new URL(started.body.url);
    const state = url.searchParams.get("state")!;
    const code = url.searchParams.get("code")!;
    const refusals = [
      `/v2/auth/callback/github?code=${code}x&state=${state}`,
      `/v2/auth/callback/google?code=${code}&state=${state}`,
      `/v2/auth/callback/github?code=${code}&state=${state.toUpperCase()}x`,
      `/v2/auth/callback/github?code=${code}&state=oauth-flow`,
      `/v2/auth/callback/github?state=${state}`,
      `/v2/auth/callback/github?code=${code}`,
      `/v2/auth/setup/github?code=${code}`,
    ];
    for (const path of refusals) {
      const res = await controlPlane("GET", path);
      expect(res.status, path).toBe(400);
      expectNoSecret(res.body, code);
    }
    expect((await authWait(workspace, state)).body.status).toBe("pending");
    expect((await follow(started.body.url)).status).toBe(200);
  });

  it("answers the provider's error as 400 and leaves the authorization pending", async () => {
    const workspace = await setUp();
    const started = await authenticate(workspace, { provider: "github", scopes: [] });
    const res = await controlPlane("GET", `/v2/auth/callback/github?error=access_denied&error_description=User%20said%20no&state=${started.body.auth_id}`);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ detail: "OAuth authorization failed at the provider: access_denied (User said no)." });
    expect((await authWait(workspace, started.body.auth_id)).body.status).toBe("pending");
  });

  it("GET /v2/auth/setup/{provider_id} completes with code and state, and answers a GitHub App update without them", async () => {
    const workspace = await setUp();
    const started = await authenticate(workspace, { provider: "github", scopes: [] });
    const setup = await controlPlane("GET", `/v2/auth/setup/github${new URL(started.body.url).search}&installation_id=42`);
    expect(setup.status).toBe(200);
    expect(setup.body.status).toBe("completed");
    expect((await authWait(workspace, started.body.auth_id)).body.status).toBe("completed");
    const update = await controlPlane("GET", "/v2/auth/setup/github?setup_action=update&installation_id=42");
    expect(update.status).toBe(200);
    expect(update.body).toMatchObject({ status: "updated", installation_id: 42 });
    const badInstallation = await controlPlane("GET", "/v2/auth/setup/github?setup_action=update&installation_id=forty-two");
    expect(badInstallation.status).toBe(422);
    expect(badInstallation.body.detail[0]).toMatchObject({ type: "int_parsing", loc: ["query", "installation_id"] });
  });

  it("POST /v2/auth/callback/{provider_id} completes for the workspace that started it, and only for it", async () => {
    const workspace = await setUp();
    const started = await authenticate(workspace, { provider: "github", scopes: [] });
    const params = new URL(started.body.url).searchParams;
    const body = { code: params.get("code"), state: params.get("state") };
    const stranger = await controlPlane("POST", "/v2/auth/callback/github", { workspace: freshWorkspace(), body });
    expect(stranger.status).toBe(400);
    expect((await controlPlane("POST", "/v2/auth/callback/github", { body })).status).toBe(401);
    const missing = await controlPlane("POST", "/v2/auth/callback/github", { workspace, body: { code: body.code } });
    expect(missing.status).toBe(422);
    expect(missing.body.detail).toEqual([{ type: "missing", loc: ["body", "state"], msg: "Field required" }]);
    expect((await authWait(workspace, started.body.auth_id)).body.status).toBe("pending");
    const own = await controlPlane("POST", "/v2/auth/callback/github", { workspace, body });
    expect(own.status).toBe(200);
    expect(own.body.status).toBe("completed");
    expect((await authWait(workspace, started.body.auth_id)).body.status).toBe("completed");
  });

  it("keeps the code only as a digest in storage", async () => {
    const workspace = await setUp();
    const started = await authenticate(workspace, { provider: "github", scopes: [] });
    const code = new URL(started.body.url).searchParams.get("code")!;
    const stub = controlPlaneEnv.CONTROL_PLANE_WORKSPACES.getByName(workspace);
    const stored = await runInDurableObject(stub, (_i, state) => JSON.stringify(state.storage.sql.exec("SELECT * FROM oauth_flows").toArray()));
    expect(stored).toContain(started.body.auth_id);
    expect(stored).not.toContain(code);
  });
});

describe("deleting the provider", () => {
  it("deletes its tokens and pending authorizations", async () => {
    const workspace = await setUp();
    const { token } = await grantToken(workspace, "github");
    const pending = await authenticate(workspace, { provider: "github", scopes: ["more"] });
    const res = await controlPlane("DELETE", "/v2/auth/providers/github", { workspace });
    expect(res.body).toEqual({ status: "deleted", provider_id: "github", deleted_tokens: 1 });
    expectNoSecret(res.body, token);
    expect((await controlPlane("GET", "/v2/auth/tokens", { workspace })).body).toEqual([]);
    expect((await authWait(workspace, pending.body.auth_id)).body.status).toBe("not_found");
    expect((await follow(pending.body.url)).status).toBe(400);
  });
});
