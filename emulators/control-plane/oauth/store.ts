import { RpcTarget } from "cloudflare:workers";
import { ok, type Result } from "../../shared/result.ts";
import {
  connectionNotFound,
  duplicateConnection,
  duplicateProvider,
  invalidState,
  providerNotFound,
  tokenNotFound,
  tokenOfAnotherProvider,
} from "./refusals.ts";
import type { AuthenticateRequest, ProviderUpdateRequest } from "./schema.ts";
import { mintAccessToken } from "./secrets.ts";
import { toConnection, toProvider, toTokenSummary, type AgentConnection, type OAuthProvider, type OAuthTokenSummary } from "./serialize.ts";
import { createOAuthTables, type ConnectionRow, type FlowRow, type ProviderRow, type TokenRow } from "./tables.ts";

/** A provider as stored: the create request with its client secret already digested. */
export interface ProviderDraft {
  readonly provider_id: string;
  readonly name: string;
  readonly client_id: string;
  readonly client_secret_digest: string | null;
  readonly auth_url: string;
  readonly token_url: string;
  readonly uses_pkce: boolean;
  readonly code_challenge_method: string | null;
  readonly provider_type: string | null;
  readonly mcp_server_url: string | null;
  readonly token_endpoint_auth_method: string;
  readonly is_dynamic_client: boolean;
}

/** A provider change: PATCH's fields, the secret already digested. */
export type ProviderChange = Omit<ProviderUpdateRequest, "client_secret"> & { readonly client_secret_digest?: string | undefined };

/** An authorization the route prepared, used when no token can answer at once. */
export interface PendingDraft {
  readonly authId: string;
  readonly codeDigest: string;
  readonly expiresMs: number;
}

/** What `authenticate` decided: a token now, or an authorization to complete first. */
export type Authentication =
  { readonly status: "completed"; readonly token: string; readonly tokenId: string } | { readonly status: "pending"; readonly authId: string };

/** AuthWaitResponse. */
export interface WaitOutcome {
  readonly status: "completed" | "pending" | "timeout" | "not_found";
  readonly token: string | null;
}

/** The pending authorization a redirect completed. */
export interface Completion {
  readonly auth_id: string;
  readonly provider_id: string;
}

const PROVIDER_COLUMNS =
  "id, provider_id, name, client_id, client_secret_digest, auth_url, token_url, uses_pkce, code_challenge_method, provider_type, mcp_server_url, token_endpoint_auth_method, is_dynamic_client, created_ms, updated_ms";
const TOKEN_COLUMNS = "id, provider_id, user_id, agent_id, scopes, access_token, provider_account_label, is_default, created_ms, updated_ms";

/**
 * OAuth providers, tokens, pending authorizations and agent connections of one workspace, in its
 * SQLite. Every method but `wait` runs without awaiting, so each is atomic with respect to the
 * others (one object per workspace serializes them). `wait` holds a long poll in the object
 * itself: the redirect that completes an authorization reaches this same object and wakes it, so
 * no isolate polls and no isolate's memory has to be right.
 */
export class OAuthStore extends RpcTarget {
  /** The store's clock, in ms since the epoch; tests replace it (`runInDurableObject`) to expire authorizations. */
  clock: () => number = Date.now;
  /**
   * Runs `fire` after `ms` and answers how to cancel it: the end of a `wait`. Tests replace it
   * (one that never fires, or fires at once) so that no test waits on real time.
   */
  startTimer: (fire: () => void, ms: number) => () => void = (fire, ms) => {
    const timer = setTimeout(fire, ms);
    return () => clearTimeout(timer);
  };

  readonly #ctx: DurableObjectState;
  readonly #sql: SqlStorage;
  readonly #waiters = new Map<string, Set<() => void>>();

  constructor(ctx: DurableObjectState) {
    super();
    this.#ctx = ctx;
    this.#sql = ctx.storage.sql;
    createOAuthTables(this.#sql);
  }

  // Providers

  listProviders(workspaceId: string): OAuthProvider[] {
    return this.#sql
      .exec<ProviderRow>(`SELECT ${PROVIDER_COLUMNS} FROM oauth_providers ORDER BY created_ms, id`)
      .toArray()
      .map((row) => toProvider(row, workspaceId));
  }

  /** Stores a provider; 409 when the workspace already has one with this `provider_id`. */
  createProvider(workspaceId: string, draft: ProviderDraft): Result<OAuthProvider> {
    const now = this.clock();
    const inserted = this.#sql
      .exec<ProviderRow>(
        `INSERT INTO oauth_providers (${PROVIDER_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (provider_id) DO NOTHING RETURNING ${PROVIDER_COLUMNS}`,
        crypto.randomUUID(),
        draft.provider_id,
        draft.name,
        draft.client_id,
        draft.client_secret_digest,
        draft.auth_url,
        draft.token_url,
        draft.uses_pkce ? 1 : 0,
        draft.code_challenge_method,
        draft.provider_type,
        draft.mcp_server_url,
        draft.token_endpoint_auth_method,
        draft.is_dynamic_client ? 1 : 0,
        now,
        now,
      )
      .toArray()[0];
    return inserted ? ok(toProvider(inserted, workspaceId)) : duplicateProvider(draft.provider_id);
  }

  getProvider(workspaceId: string, providerId: string): Result<OAuthProvider> {
    const row = this.#provider(providerId);
    return row ? ok(toProvider(row, workspaceId)) : providerNotFound(providerId);
  }

  /** Applies the fields present; `updated_at` always moves forward. */
  updateProvider(workspaceId: string, providerId: string, change: ProviderChange): Result<OAuthProvider> {
    const row = this.#provider(providerId);
    if (!row) return providerNotFound(providerId);
    const updated: ProviderRow = {
      ...row,
      name: change.name ?? row.name,
      client_id: change.client_id ?? row.client_id,
      client_secret_digest: change.client_secret_digest ?? row.client_secret_digest,
      auth_url: change.auth_url ?? row.auth_url,
      token_url: change.token_url ?? row.token_url,
      uses_pkce: change.uses_pkce === undefined ? row.uses_pkce : change.uses_pkce ? 1 : 0,
      code_challenge_method: change.code_challenge_method ?? row.code_challenge_method,
      updated_ms: Math.max(this.clock(), row.updated_ms + 1),
    };
    this.#sql.exec(
      `UPDATE oauth_providers SET name = ?, client_id = ?, client_secret_digest = ?, auth_url = ?, token_url = ?, uses_pkce = ?,
       code_challenge_method = ?, updated_ms = ? WHERE id = ?`,
      updated.name,
      updated.client_id,
      updated.client_secret_digest,
      updated.auth_url,
      updated.token_url,
      updated.uses_pkce,
      updated.code_challenge_method,
      updated.updated_ms,
      updated.id,
    );
    return ok(toProvider(updated, workspaceId));
  }

  /** Deletes the provider with its tokens, their agent connections and its pending authorizations. */
  deleteProvider(providerId: string): Result<{ provider_id: string; deleted_tokens: number }> {
    if (!this.#provider(providerId)) return providerNotFound(providerId);
    const deletedTokens = this.#ctx.storage.transactionSync(() => {
      const tokens = this.#deleteTokensWhere("provider_id = ?", providerId);
      this.#sql.exec("DELETE FROM oauth_flows WHERE provider_id = ?", providerId);
      this.#sql.exec("DELETE FROM oauth_providers WHERE provider_id = ?", providerId);
      return tokens;
    });
    return ok({ provider_id: providerId, deleted_tokens: deletedTokens });
  }

  // The authorization flow

  /**
   * POST /v2/auth/authenticate: the token asked for (`token_id`), else a usable one already
   * granted (unless `force_new`), else `pending` with the route's prepared authorization stored.
   */
  authenticate(request: AuthenticateRequest, pending: PendingDraft): Result<Authentication> {
    if (!this.#provider(request.provider)) return providerNotFound(request.provider);
    if (request.token_id !== null) {
      const token = this.#token(request.token_id);
      if (!token) return tokenNotFound(request.token_id);
      if (token.provider_id !== request.provider) return tokenOfAnotherProvider(request.token_id, request.provider);
      return ok({ status: "completed", token: token.access_token, tokenId: token.id });
    }
    const user = userOf(request);
    if (!request.force_new) {
      const usable = this.#usableToken(request.provider, user, request.agent_id, request.scopes);
      if (usable) return ok({ status: "completed", token: usable.access_token, tokenId: usable.id });
    }
    this.#sql.exec(
      "INSERT INTO oauth_flows (auth_id, provider_id, user_id, agent_id, scopes, is_default, code_digest, token_id, expires_ms) VALUES (?, ?, ?, ?, ?, ?, ?, NULL, ?)",
      pending.authId,
      request.provider,
      user,
      request.agent_id,
      JSON.stringify(request.scopes),
      request.is_default ? 1 : 0,
      pending.codeDigest,
      pending.expiresMs,
    );
    return ok({ status: "pending", authId: pending.authId });
  }

  /**
   * The provider's redirect came back with `code` for `authId`: grants the token once and wakes
   * every `wait` on it. Any mismatch (unknown, expired or completed authorization, another
   * provider's, a wrong code) is the same 400, so a guesser learns nothing.
   */
  complete(providerId: string, authId: string, codeDigest: string): Result<Completion> {
    const now = this.clock();
    const flow = this.#liveFlow(authId, now);
    if (!flow || flow.token_id !== null || flow.provider_id !== providerId || !this.#provider(providerId) || flow.code_digest !== codeDigest) {
      return invalidState();
    }
    const tokenId = crypto.randomUUID();
    this.#ctx.storage.transactionSync(() => {
      if (flow.is_default === 1) {
        this.#sql.exec("UPDATE oauth_tokens SET is_default = 0 WHERE provider_id = ? AND user_id IS ? AND is_default = 1", providerId, flow.user_id);
      }
      this.#sql.exec(
        `INSERT INTO oauth_tokens (${TOKEN_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, NULL, ?, ?, ?)`,
        tokenId,
        providerId,
        flow.user_id,
        flow.agent_id,
        flow.scopes,
        mintAccessToken(),
        flow.is_default,
        now,
        now,
      );
      this.#sql.exec("UPDATE oauth_flows SET token_id = ? WHERE auth_id = ?", tokenId, authId);
    });
    for (const wake of this.#waiters.get(authId) ?? []) wake();
    return ok({ auth_id: authId, provider_id: providerId });
  }

  /**
   * GET /v2/auth/wait/{auth_id}: `completed` with the token as soon as the authorization is
   * completed, within `timeoutMs`; `pending` when asked not to wait (0), `timeout` when the wait
   * ran out, `not_found` for an unknown or expired authorization.
   */
  async wait(authId: string, timeoutMs: number): Promise<WaitOutcome> {
    const first = this.#waitOutcome(authId);
    if (first.status !== "pending") return first;
    if (timeoutMs <= 0) return first;
    await new Promise<void>((resolve) => {
      const waiters = this.#waiters.get(authId) ?? new Set<() => void>();
      this.#waiters.set(authId, waiters);
      let cancel = () => {};
      const wake = () => {
        cancel();
        waiters.delete(wake);
        if (waiters.size === 0) this.#waiters.delete(authId);
        resolve();
      };
      waiters.add(wake);
      cancel = this.startTimer(wake, timeoutMs);
    });
    const last = this.#waitOutcome(authId);
    return last.status === "pending" ? { status: "timeout", token: null } : last;
  }

  // Tokens

  listTokens(providerId: string | undefined): OAuthTokenSummary[] {
    const rows =
      providerId === undefined
        ? this.#sql.exec<TokenRow>(`SELECT ${TOKEN_COLUMNS} FROM oauth_tokens ORDER BY created_ms, id`)
        : this.#sql.exec<TokenRow>(`SELECT ${TOKEN_COLUMNS} FROM oauth_tokens WHERE provider_id = ? ORDER BY created_ms, id`, providerId);
    return rows.toArray().map(toTokenSummary);
  }

  hasTokens(providerId: string): boolean {
    return this.#sql.exec("SELECT 1 FROM oauth_tokens WHERE provider_id = ? LIMIT 1", providerId).toArray().length > 0;
  }

  /** Deletes every token of the provider (across agents), with their connections; answers how many. */
  deleteTokens(providerId: string): number {
    return this.#ctx.storage.transactionSync(() => this.#deleteTokensWhere("provider_id = ?", providerId));
  }

  /** PATCH a token's metadata: its label (null clears it) and whether it is the default. */
  updateToken(tokenId: string, change: { provider_account_label?: string | null | undefined; is_default?: boolean | undefined }): Result<OAuthTokenSummary> {
    const row = this.#token(tokenId);
    if (!row) return tokenNotFound(tokenId);
    const updated: TokenRow = {
      ...row,
      provider_account_label: change.provider_account_label === undefined ? row.provider_account_label : change.provider_account_label,
      is_default: change.is_default === undefined ? row.is_default : change.is_default ? 1 : 0,
      updated_ms: Math.max(this.clock(), row.updated_ms + 1),
    };
    this.#ctx.storage.transactionSync(() => {
      // One default per provider and user: a new default takes over.
      if (updated.is_default === 1 && row.is_default === 0) {
        this.#sql.exec("UPDATE oauth_tokens SET is_default = 0 WHERE provider_id = ? AND user_id IS ? AND id != ?", row.provider_id, row.user_id, row.id);
      }
      this.#sql.exec(
        "UPDATE oauth_tokens SET provider_account_label = ?, is_default = ?, updated_ms = ? WHERE id = ?",
        updated.provider_account_label,
        updated.is_default,
        updated.updated_ms,
        row.id,
      );
    });
    return ok(toTokenSummary(updated));
  }

  deleteToken(tokenId: string): Result<null> {
    const deleted = this.#ctx.storage.transactionSync(() => this.#deleteTokensWhere("id = ?", tokenId));
    return deleted > 0 ? ok(null) : tokenNotFound(tokenId);
  }

  hasSlackTokens(): boolean {
    return this.#sql.exec(`SELECT 1 FROM oauth_tokens WHERE ${SLACK_PROVIDER} LIMIT 1`).toArray().length > 0;
  }

  /** Deletes every token of every Slack provider of the workspace; answers how many. */
  revokeSlackTokens(): number {
    return this.#ctx.storage.transactionSync(() => this.#deleteTokensWhere(SLACK_PROVIDER));
  }

  // Agent connections

  listConnections(agentId: string): AgentConnection[] {
    return this.#sql
      .exec<ConnectionRow>(
        "SELECT id, agent_id, oauth_token_id, created_by, created_ms FROM oauth_agent_connections WHERE agent_id = ? ORDER BY created_ms, id",
        agentId,
      )
      .toArray()
      .flatMap((row) => {
        const token = this.#token(row.oauth_token_id);
        return token ? [toConnection(row, token)] : [];
      });
  }

  /** Connects the agent to a token of the workspace; 404 for an unknown token, 409 when already connected. */
  createConnection(agentId: string, tokenId: string, createdBy: string): Result<AgentConnection> {
    const token = this.#token(tokenId);
    if (!token) return tokenNotFound(tokenId);
    const row = this.#sql
      .exec<ConnectionRow>(
        `INSERT INTO oauth_agent_connections (id, agent_id, oauth_token_id, created_by, created_ms) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (agent_id, oauth_token_id) DO NOTHING RETURNING id, agent_id, oauth_token_id, created_by, created_ms`,
        crypto.randomUUID(),
        agentId,
        tokenId,
        createdBy,
        this.clock(),
      )
      .toArray()[0];
    return row ? ok(toConnection(row, token)) : duplicateConnection(agentId, tokenId);
  }

  removeConnection(agentId: string, connectionId: string): Result<null> {
    const deleted = this.#sql.exec("DELETE FROM oauth_agent_connections WHERE id = ? AND agent_id = ? RETURNING id", connectionId, agentId).toArray();
    return deleted.length > 0 ? ok(null) : connectionNotFound(agentId, connectionId);
  }

  // The directory: in the object named after one pending authorization, which workspace holds it
  // (flow.ts). Only the browser's redirect, which carries no credential, needs it. A record lives
  // only while its authorization may still complete: it is deleted when the redirect completes it,
  // when it is read after its expiry, and by the object's alarm at its expiry otherwise.

  async registerFlow(authId: string, workspaceId: string, expiresMs: number): Promise<void> {
    this.#sql.exec("INSERT OR REPLACE INTO oauth_flow_directory (auth_id, workspace_id, expires_ms) VALUES (?, ?, ?)", authId, workspaceId, expiresMs);
    await this.#ctx.storage.setAlarm(expiresMs);
  }

  flowWorkspace(authId: string): string | undefined {
    const row = this.#sql
      .exec<{ workspace_id: string; expires_ms: number }>("SELECT workspace_id, expires_ms FROM oauth_flow_directory WHERE auth_id = ?", authId)
      .toArray()[0];
    if (row && row.expires_ms <= this.clock()) this.forgetFlow(authId);
    return row && row.expires_ms > this.clock() ? row.workspace_id : undefined;
  }

  /** The authorization completed (or ended): its directory record goes. */
  forgetFlow(authId: string): void {
    this.#sql.exec("DELETE FROM oauth_flow_directory WHERE auth_id = ?", authId);
  }

  /** The object's alarm: directory records past their expiry go. */
  onAlarm(): void {
    this.#sql.exec("DELETE FROM oauth_flow_directory WHERE expires_ms <= ?", this.clock());
  }

  // Reads

  #provider(providerId: string): ProviderRow | undefined {
    return this.#sql.exec<ProviderRow>(`SELECT ${PROVIDER_COLUMNS} FROM oauth_providers WHERE provider_id = ?`, providerId).toArray()[0];
  }

  #token(tokenId: string): TokenRow | undefined {
    return this.#sql.exec<TokenRow>(`SELECT ${TOKEN_COLUMNS} FROM oauth_tokens WHERE id = ?`, tokenId).toArray()[0];
  }

  /**
   * A token that answers for (provider, user, agent) with every scope asked for: one the agent is
   * connected to first, then the user's own for that agent, the default before the newest.
   */
  #usableToken(providerId: string, user: string | null, agentId: string | null, scopes: readonly string[]): TokenRow | undefined {
    const covers = (row: TokenRow) => {
      const granted = new Set(JSON.parse(row.scopes) as string[]);
      return scopes.every((scope) => granted.has(scope));
    };
    const connected =
      agentId === null
        ? []
        : this.#sql
            .exec<TokenRow>(
              `SELECT ${TOKEN_COLUMNS.split(", ")
                .map((c) => `t.${c}`)
                .join(", ")} FROM oauth_agent_connections c JOIN oauth_tokens t ON t.id = c.oauth_token_id
               WHERE c.agent_id = ? AND t.provider_id = ? ORDER BY c.created_ms DESC`,
              agentId,
              providerId,
            )
            .toArray();
    const owned = this.#sql
      .exec<TokenRow>(
        `SELECT ${TOKEN_COLUMNS} FROM oauth_tokens WHERE provider_id = ? AND user_id IS ? AND agent_id IS ? ORDER BY is_default DESC, created_ms DESC`,
        providerId,
        user,
        agentId,
      )
      .toArray();
    return [...connected, ...owned].find(covers);
  }

  /** The authorization, unless it expired (then it is forgotten). */
  #liveFlow(authId: string, now: number): FlowRow | undefined {
    const flow = this.#sql.exec<FlowRow>("SELECT * FROM oauth_flows WHERE auth_id = ?", authId).toArray()[0];
    if (flow && flow.expires_ms <= now) {
      this.#sql.exec("DELETE FROM oauth_flows WHERE auth_id = ?", authId);
      return undefined;
    }
    return flow;
  }

  #waitOutcome(authId: string): WaitOutcome {
    const flow = this.#liveFlow(authId, this.clock());
    if (!flow) return { status: "not_found", token: null };
    if (flow.token_id === null) return { status: "pending", token: null };
    const token = this.#token(flow.token_id);
    return token ? { status: "completed", token: token.access_token } : { status: "not_found", token: null };
  }

  /** Deletes matching tokens and the agent connections that use them; call inside a transaction. */
  #deleteTokensWhere(condition: string, ...bindings: SqlStorageValue[]): number {
    const ids = this.#sql.exec<{ id: string }>(`DELETE FROM oauth_tokens WHERE ${condition} RETURNING id`, ...bindings).toArray();
    for (const { id } of ids) this.#sql.exec("DELETE FROM oauth_agent_connections WHERE oauth_token_id = ?", id);
    return ids.length;
  }
}

const SLACK_PROVIDER = "provider_id IN (SELECT provider_id FROM oauth_providers WHERE provider_type = 'slack')";

/** The user a token is granted to: `user_id`, else the LangSmith user, else the workspace's caller (null). */
const userOf = (request: AuthenticateRequest): string | null => request.user_id ?? request.ls_user_id;
