import { Hono, type Context } from "hono";
import { answer } from "../../shared/answer.ts";
import { ok, type Result } from "../../shared/result.ts";
import { validate } from "../../shared/validate.ts";
import { authenticate, type ControlPlaneEnv } from "../auth.ts";
import { discoverMcpProvider } from "./discovery.ts";
import { authorizationUrl, directoryOf, oauthOf, prepareAuthorization, waitMs } from "./flow.ts";
import { invalidState, missingCodeOrState, providerError } from "./refusals.ts";
import {
  AgentPath,
  AuthenticateRequest,
  AuthPath,
  CallbackQuery,
  ConnectionCreateRequest,
  ConnectionPath,
  FinalizeRequest,
  McpDiscoverRequest,
  ProviderCreateRequest,
  ProviderPath,
  ProviderQuery,
  ProviderUpdateRequest,
  SetupQuery,
  TokenListQuery,
  TokenPath,
  TokenUpdateRequest,
  WaitQuery,
} from "./schema.ts";
import { sha256Hex } from "./secrets.ts";
import type { Completion } from "./store.ts";

/** The auth ids the emulator issues: lower-case UUIDs, the only names the directory is asked about. */
const AUTH_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A completed redirect, as the browser sees it: no token, only what happened. */
const completedPage = (completion: Completion) => ({
  status: "completed",
  auth_id: completion.auth_id,
  provider_id: completion.provider_id,
  message: "Authorization complete: you can close this window.",
});

/**
 * The provider's redirect reached us with `code` and `state`: find the workspace that started the
 * authorization (the directory, flow.ts) and complete it there.
 */
async function completeRedirect(c: Context<ControlPlaneEnv>, providerId: string, code: string, state: string): Promise<Result<Completion>> {
  if (!AUTH_ID.test(state)) return invalidState();
  using directory = directoryOf(c, state);
  const workspaceId = await directory.flowWorkspace(state);
  if (workspaceId === undefined) return invalidState();
  using store = oauthOf(c, workspaceId);
  const completed = await store.complete(providerId, state, await sha256Hex(code));
  if (completed.ok) await directory.forgetFlow(state);
  return completed;
}

/**
 * The browser's half of the flow: the redirects a provider sends the user back with. They carry no
 * API key (a browser has none), so they are served before the app's authentication; the code and
 * state are the credential, good once.
 */
const redirectRoutes = new Hono<ControlPlaneEnv>()
  .get("/callback/:provider_id", validate("param", ProviderPath), validate("query", CallbackQuery), async (c) => {
    const { provider_id } = c.req.valid("param");
    const { code, state, error, error_description } = c.req.valid("query");
    if (error !== undefined) return answer(c, providerError(error, error_description));
    if (code === undefined || state === undefined) return answer(c, missingCodeOrState());
    return answer(c, await completeRedirect(c, provider_id, code, state), (done) => c.json(completedPage(done), 200));
  })
  .get("/setup/:provider_id", validate("param", ProviderPath), validate("query", SetupQuery), async (c) => {
    const { provider_id } = c.req.valid("param");
    const { code, state, error, error_description, setup_action, installation_id } = c.req.valid("query");
    if (error !== undefined) return answer(c, providerError(error, error_description));
    if (code !== undefined && state !== undefined) {
      return answer(c, await completeRedirect(c, provider_id, code, state), (done) => c.json(completedPage(done), 200));
    }
    // A GitHub App installation changed on GitHub's side: nothing to exchange, as the real service says.
    if (setup_action === "update") {
      return c.json({ status: "updated", provider_id, installation_id: installation_id ?? null, message: "Installation updated." }, 200);
    }
    return answer(c, missingCodeOrState());
  });

const providerRoutes = new Hono<ControlPlaneEnv>()
  .get("/providers", async (c) => {
    using store = oauthOf(c);
    return c.json(await store.listProviders(c.var.workspaceId), 200);
  })
  .post("/providers", validate("json", ProviderCreateRequest), async (c) => {
    const { client_secret, ...request } = c.req.valid("json");
    const draft = {
      ...request,
      client_secret_digest: client_secret === null ? null : await sha256Hex(client_secret),
      mcp_server_url: null,
      is_dynamic_client: false,
    };
    using store = oauthOf(c);
    return answer(c, await store.createProvider(c.var.workspaceId, draft));
  })
  .post("/providers/mcp-discover", validate("json", McpDiscoverRequest), async (c) => {
    using store = oauthOf(c);
    return answer(c, await store.createProvider(c.var.workspaceId, discoverMcpProvider(c.req.valid("json"))));
  })
  .get("/providers/:provider_id", validate("param", ProviderPath), async (c) => {
    using store = oauthOf(c);
    return answer(c, await store.getProvider(c.var.workspaceId, c.req.valid("param").provider_id));
  })
  .patch("/providers/:provider_id", validate("param", ProviderPath), validate("json", ProviderUpdateRequest), async (c) => {
    const { client_secret, ...change } = c.req.valid("json");
    const digest = client_secret === undefined ? undefined : await sha256Hex(client_secret);
    using store = oauthOf(c);
    return answer(c, await store.updateProvider(c.var.workspaceId, c.req.valid("param").provider_id, { ...change, client_secret_digest: digest }));
  })
  .delete("/providers/:provider_id", validate("param", ProviderPath), async (c) => {
    using store = oauthOf(c);
    return answer(c, await store.deleteProvider(c.req.valid("param").provider_id), (deleted) => c.json({ status: "deleted", ...deleted }, 200));
  });

const flowRoutes = new Hono<ControlPlaneEnv>()
  .post("/authenticate", validate("json", AuthenticateRequest), async (c) => {
    const request = c.req.valid("json");
    const { draft, code } = await prepareAuthorization(Date.now());
    using store = oauthOf(c);
    const result = await store.authenticate(request, draft);
    if (!result.ok) return answer(c, result);
    const user_id = request.user_id ?? request.ls_user_id;
    if (result.value.status === "completed") {
      return c.json({ status: "completed", url: null, auth_id: null, token: result.value.token, user_id, metadata: { token_id: result.value.tokenId } }, 200);
    }
    using directory = directoryOf(c, draft.authId);
    await directory.registerFlow(draft.authId, c.var.workspaceId, draft.expiresMs);
    const url = authorizationUrl(c, request.provider, draft.authId, code);
    return c.json({ status: "pending", url, auth_id: draft.authId, token: null, user_id, metadata: null }, 200);
  })
  .get("/wait/:auth_id", validate("param", AuthPath), validate("query", WaitQuery), async (c) => {
    using store = oauthOf(c);
    return c.json(await store.wait(c.req.valid("param").auth_id, waitMs(c.req.valid("query").timeout)), 200);
  })
  // The frontend's relay of the provider's redirect: the caller's own workspace only.
  .post("/callback/:provider_id", validate("param", ProviderPath), validate("json", FinalizeRequest), async (c) => {
    const { code, state } = c.req.valid("json");
    using store = oauthOf(c);
    const result = AUTH_ID.test(state) ? await store.complete(c.req.valid("param").provider_id, state, await sha256Hex(code)) : invalidState();
    return answer(c, result, (done) => c.json(completedPage(done), 200));
  });

const tokenRoutes = new Hono<ControlPlaneEnv>()
  .get("/tokens", validate("query", TokenListQuery), async (c) => {
    using store = oauthOf(c);
    return c.json(await store.listTokens(c.req.valid("query").provider_id), 200);
  })
  .delete("/tokens", validate("query", ProviderQuery), async (c) => {
    const { provider_id } = c.req.valid("query");
    using store = oauthOf(c);
    return c.json({ status: "deleted", provider_id, deleted_tokens: await store.deleteTokens(provider_id) }, 200);
  })
  .get("/tokens/exists", validate("query", ProviderQuery), async (c) => {
    using store = oauthOf(c);
    return c.json({ has_token: await store.hasTokens(c.req.valid("query").provider_id) }, 200);
  })
  .get("/tokens/workspace/slack/exists", async (c) => {
    using store = oauthOf(c);
    return c.json({ has_token: await store.hasSlackTokens() }, 200);
  })
  .delete("/tokens/workspace/slack", async (c) => {
    using store = oauthOf(c);
    return c.json({ status: "revoked", revoked_tokens: await store.revokeSlackTokens() }, 200);
  })
  .patch("/tokens/:token_id/metadata", validate("param", TokenPath), validate("json", TokenUpdateRequest), async (c) => {
    using store = oauthOf(c);
    return answer(c, await store.updateToken(c.req.valid("param").token_id, c.req.valid("json")));
  })
  .delete("/tokens/:token_id", validate("param", TokenPath), async (c) => {
    using store = oauthOf(c);
    return answer(c, await store.deleteToken(c.req.valid("param").token_id), () => c.body(null, 204));
  });

const connectionRoutes = new Hono<ControlPlaneEnv>()
  .get("/agents/:agent_id/connections", validate("param", AgentPath), async (c) => {
    using store = oauthOf(c);
    return answer(c, ok({ data: await store.listConnections(c.req.valid("param").agent_id) }));
  })
  .post("/agents/:agent_id/connections", validate("param", AgentPath), validate("json", ConnectionCreateRequest), async (c) => {
    using store = oauthOf(c);
    // One user per workspace here (docs/control-plane-auth.md), so the creator is the workspace.
    const result = await store.createConnection(c.req.valid("param").agent_id, c.req.valid("json").oauth_token_id, c.var.workspaceId);
    return answer(c, result, (connection) => c.json(connection, 201));
  })
  .delete("/agents/:agent_id/connections/:connection_id", validate("param", ConnectionPath), async (c) => {
    const { agent_id, connection_id } = c.req.valid("param");
    using store = oauthOf(c);
    return answer(c, await store.removeConnection(agent_id, connection_id), () => c.body(null, 204));
  });

/**
 * `/v2/auth`: OAuth providers, the authorization flow (authenticate, the redirect, wait), tokens,
 * Slack workspace tokens and agent connections (docs/control-plane-auth.md). Mounted before the
 * app's authentication: the redirects are served without a credential, everything else
 * authenticates here exactly as the rest of the API does.
 */
export const oauthRoutes = new Hono<ControlPlaneEnv>()
  .route("/", redirectRoutes)
  .use("*", authenticate())
  .route("/", providerRoutes)
  .route("/", flowRoutes)
  .route("/", tokenRoutes)
  .route("/", connectionRoutes);
