/**
 * The SQLite tables of deployments and their revisions, inside the workspace's Durable Object.
 * Names are prefixed so they cannot meet the other stores' tables in the same database. Nested
 * objects are JSON text; times are integer milliseconds (the lifecycle computes on them).
 */

/** A `deployments` row. `secrets` holds the values in clear: they never leave the object. */
export type DeploymentRow = {
  seq: number;
  id: string;
  tenant_id: string;
  name: string;
  source: string;
  source_config: string;
  secrets: string;
  secret_references: string | null;
  created_ms: number;
  updated_ms: number;
  status: string;
  latest_revision_id: string | null;
  active_revision_id: string | null;
  image_version: string | null;
};

/**
 * A `deployments` row joined with its latest revision's configuration and, once one serves it, the
 * URL of its agent server (agent-servers.ts).
 */
export type DeploymentView = DeploymentRow & { latest_config: string | null; agent_server_url?: string | null };

/**
 * A `deployment_revisions` row. `created_ms`, `step_ms` and `outcome` fix its whole timeline;
 * `status`, `updated_ms` and `next_at` are that timeline as last persisted (`next_at` is null once
 * the status is final, and the alarm is set for the smallest `next_at` of the workspace).
 */
export type RevisionRow = {
  seq: number;
  id: string;
  deployment_id: string;
  source: string;
  config: string;
  created_ms: number;
  step_ms: number;
  outcome: string;
  status: string;
  updated_ms: number;
  next_at: number | null;
};

export function createDeploymentTables(sql: SqlStorage): void {
  sql.exec(`CREATE TABLE IF NOT EXISTS deployments (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    tenant_id TEXT NOT NULL,
    name TEXT NOT NULL,
    source TEXT NOT NULL,
    source_config TEXT NOT NULL,
    secrets TEXT NOT NULL,
    secret_references TEXT,
    created_ms INTEGER NOT NULL,
    updated_ms INTEGER NOT NULL,
    status TEXT NOT NULL,
    latest_revision_id TEXT,
    active_revision_id TEXT,
    image_version TEXT
  )`);
  sql.exec(`CREATE TABLE IF NOT EXISTS deployment_revisions (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    deployment_id TEXT NOT NULL,
    source TEXT NOT NULL,
    config TEXT NOT NULL,
    created_ms INTEGER NOT NULL,
    step_ms INTEGER NOT NULL,
    outcome TEXT NOT NULL,
    status TEXT NOT NULL,
    updated_ms INTEGER NOT NULL,
    next_at INTEGER
  )`);
  sql.exec("CREATE INDEX IF NOT EXISTS deployment_revisions_by_deployment ON deployment_revisions (deployment_id, seq)");
  sql.exec("CREATE INDEX IF NOT EXISTS deployment_revisions_pending ON deployment_revisions (next_at) WHERE next_at IS NOT NULL");
  // How far the workspace's deployment clock runs ahead of the machine's (one row once moved).
  sql.exec("CREATE TABLE IF NOT EXISTS deployment_clock (id INTEGER PRIMARY KEY CHECK (id = 1), ahead_ms INTEGER NOT NULL)");
}
