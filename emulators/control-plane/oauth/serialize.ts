/**
 * Stored rows to the resources the API answers with (OAuthProviderResponse, OAuthTokenSummary,
 * AgentConnectionResponse). The one place answers are made: none of them has a field for a client
 * secret or a token value, so no listing can return one.
 */
import type { ConnectionRow, ProviderRow, TokenRow } from "./tables.ts";

const iso = (ms: number) => new Date(ms).toISOString();

/** OAuthProviderResponse. */
export interface OAuthProvider {
  readonly id: string;
  readonly organization_id: string;
  readonly provider_id: string;
  readonly name: string;
  readonly client_id: string;
  readonly auth_url: string;
  readonly token_url: string;
  readonly uses_pkce: boolean;
  readonly code_challenge_method: string | null;
  readonly provider_type: string | null;
  readonly mcp_server_url: string | null;
  readonly token_endpoint_auth_method: string;
  readonly is_dynamic_client: boolean;
  readonly created_at: string;
  readonly updated_at: string;
}

/** OAuthTokenSummary: "no sensitive data". */
export interface OAuthTokenSummary {
  readonly id: string;
  readonly provider_id: string;
  readonly provider_account_label: string | null;
  readonly scopes: string[];
  readonly expires_at: string | null;
  readonly is_default: boolean;
  readonly created_at: string;
  readonly updated_at: string;
}

/** AgentConnectionResponse. */
export interface AgentConnection {
  readonly id: string;
  readonly agent_id: string;
  readonly oauth_token_id: string;
  readonly provider_id: string;
  readonly provider_account_label: string | null;
  readonly scopes: string[];
  readonly expires_at: string | null;
  readonly created_by: string;
  readonly created_at: string;
}

/** The organization of a provider is the workspace that owns it. */
export function toProvider(row: ProviderRow, workspaceId: string): OAuthProvider {
  return {
    id: row.id,
    organization_id: workspaceId,
    provider_id: row.provider_id,
    name: row.name,
    client_id: row.client_id,
    auth_url: row.auth_url,
    token_url: row.token_url,
    uses_pkce: row.uses_pkce === 1,
    code_challenge_method: row.code_challenge_method,
    provider_type: row.provider_type,
    mcp_server_url: row.mcp_server_url,
    token_endpoint_auth_method: row.token_endpoint_auth_method,
    is_dynamic_client: row.is_dynamic_client === 1,
    created_at: iso(row.created_ms),
    updated_at: iso(row.updated_ms),
  };
}

/** Emulated tokens never expire (docs/control-plane-auth.md), so `expires_at` is null. */
export function toTokenSummary(row: TokenRow): OAuthTokenSummary {
  return {
    id: row.id,
    provider_id: row.provider_id,
    provider_account_label: row.provider_account_label,
    scopes: JSON.parse(row.scopes) as string[],
    expires_at: null,
    is_default: row.is_default === 1,
    created_at: iso(row.created_ms),
    updated_at: iso(row.updated_ms),
  };
}

export function toConnection(row: ConnectionRow, token: TokenRow): AgentConnection {
  return {
    id: row.id,
    agent_id: row.agent_id,
    oauth_token_id: row.oauth_token_id,
    provider_id: token.provider_id,
    provider_account_label: token.provider_account_label,
    scopes: JSON.parse(token.scopes) as string[],
    expires_at: null,
    created_by: row.created_by,
    created_at: iso(row.created_ms),
  };
}
