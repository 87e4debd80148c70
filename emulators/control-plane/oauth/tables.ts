/**
 * The /v2/auth tables of a workspace's SQLite. Secrets never sit here in clear: a provider's
 * client secret and a pending authorization's code are kept as SHA-256 digests. Access tokens are
 * the emulator's own stand-ins, kept because `authenticate` answers them again
 * (docs/control-plane-auth.md, "Secrets").
 */

export interface ProviderRow extends Record<string, SqlStorageValue> {
  id: string;
  provider_id: string;
  name: string;
  client_id: string;
  client_secret_digest: string | null;
  auth_url: string;
  token_url: string;
  uses_pkce: number;
  code_challenge_method: string | null;
  provider_type: string | null;
  mcp_server_url: string | null;
  token_endpoint_auth_method: string;
  is_dynamic_client: number;
  created_ms: number;
  updated_ms: number;
}

export interface TokenRow extends Record<string, SqlStorageValue> {
  id: string;
  provider_id: string;
  user_id: string | null;
  agent_id: string | null;
  scopes: string;
  access_token: string;
  provider_account_label: string | null;
  is_default: number;
  created_ms: number;
  updated_ms: number;
}

export interface FlowRow extends Record<string, SqlStorageValue> {
  auth_id: string;
  provider_id: string;
  user_id: string | null;
  agent_id: string | null;
  scopes: string;
  is_default: number;
  code_digest: string;
  token_id: string | null;
  expires_ms: number;
}

export interface ConnectionRow extends Record<string, SqlStorageValue> {
  id: string;
  agent_id: string;
  oauth_token_id: string;
  created_by: string;
  created_ms: number;
}

/** Creates the tables once per object (idempotent). */
export function createOAuthTables(sql: SqlStorage): void {
  sql.exec(`CREATE TABLE IF NOT EXISTS oauth_providers (
    id TEXT PRIMARY KEY,
    provider_id TEXT NOT NULL UNIQUE,
    name TEXT NOT NULL,
    client_id TEXT NOT NULL,
    client_secret_digest TEXT,
    auth_url TEXT NOT NULL,
    token_url TEXT NOT NULL,
    uses_pkce INTEGER NOT NULL,
    code_challenge_method TEXT,
    provider_type TEXT,
    mcp_server_url TEXT,
    token_endpoint_auth_method TEXT NOT NULL,
    is_dynamic_client INTEGER NOT NULL,
    created_ms INTEGER NOT NULL,
    updated_ms INTEGER NOT NULL
  )`);
  sql.exec(`CREATE TABLE IF NOT EXISTS oauth_tokens (
    id TEXT PRIMARY KEY,
    provider_id TEXT NOT NULL,
    user_id TEXT,
    agent_id TEXT,
    scopes TEXT NOT NULL,
    access_token TEXT NOT NULL,
    provider_account_label TEXT,
    is_default INTEGER NOT NULL,
    created_ms INTEGER NOT NULL,
    updated_ms INTEGER NOT NULL
  )`);
  sql.exec("CREATE INDEX IF NOT EXISTS oauth_tokens_by_provider ON oauth_tokens (provider_id, created_ms, id)");
  sql.exec(`CREATE TABLE IF NOT EXISTS oauth_flows (
    auth_id TEXT PRIMARY KEY,
    provider_id TEXT NOT NULL,
    user_id TEXT,
    agent_id TEXT,
    scopes TEXT NOT NULL,
    is_default INTEGER NOT NULL,
    code_digest TEXT NOT NULL,
    token_id TEXT,
    expires_ms INTEGER NOT NULL
  )`);
  sql.exec(`CREATE TABLE IF NOT EXISTS oauth_agent_connections (
    id TEXT PRIMARY KEY,
    agent_id TEXT NOT NULL,
    oauth_token_id TEXT NOT NULL,
    created_by TEXT NOT NULL,
    created_ms INTEGER NOT NULL,
    UNIQUE (agent_id, oauth_token_id)
  )`);
  // Only in the object that indexes one pending authorization (flow.ts, "directory").
  sql.exec(`CREATE TABLE IF NOT EXISTS oauth_flow_directory (
    auth_id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL,
    expires_ms INTEGER NOT NULL
  )`);
}
