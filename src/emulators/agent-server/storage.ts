import { timestamp } from "./clock.ts";
import { defaultAssistantId, GRAPHS } from "./graphs/registry.ts";

/**
 * The object's tables. Versions are rows keyed by (assistant_id, version), so a duplicate version
 * cannot be stored; the store numbers them max+1 inside one synchronous transaction, which the
 * object runs one at a time, so there are no gaps either. JSON fields are stored as text.
 */
const TABLES = [
  `CREATE TABLE IF NOT EXISTS assistants (
    assistant_id TEXT PRIMARY KEY,
    active_version INTEGER NOT NULL,
    system INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
  )`,
  `CREATE TABLE IF NOT EXISTS assistant_versions (
    assistant_id TEXT NOT NULL,
    version INTEGER NOT NULL,
    graph_id TEXT NOT NULL,
    name TEXT NOT NULL,
    description TEXT,
    config TEXT NOT NULL,
    context TEXT NOT NULL,
    metadata TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (assistant_id, version)
  )`,
  `CREATE TABLE IF NOT EXISTS threads (
    thread_id TEXT PRIMARY KEY,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    metadata TEXT NOT NULL,
    status TEXT NOT NULL,
    config TEXT NOT NULL,
    state_values TEXT NOT NULL,
    interrupts TEXT NOT NULL
  )`,
  `CREATE TABLE IF NOT EXISTS runs (
    run_id TEXT PRIMARY KEY,
    thread_id TEXT NOT NULL,
    assistant_id TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    status TEXT NOT NULL,
    metadata TEXT NOT NULL,
    kwargs TEXT NOT NULL,
    multitask_strategy TEXT NOT NULL,
    lease_expires_at INTEGER NOT NULL
  )`,
  `CREATE INDEX IF NOT EXISTS runs_by_thread ON runs (thread_id, status)`,
];

/** Creates the tables (idempotent: runs every time the object starts). */
export function migrate(sql: SqlStorage): void {
  for (const statement of TABLES) sql.exec(statement);
}

/**
 * Gives every deployed graph its default assistant (version 1, `metadata.created_by = "system"`,
 * named after the graph), once: a restart keeps the stored rows and their timestamps.
 */
export function seedDefaultAssistants(sql: SqlStorage): void {
  const now = timestamp();
  for (const graphId of GRAPHS.keys()) {
    const id = defaultAssistantId(graphId);
    sql.exec("INSERT OR IGNORE INTO assistants (assistant_id, active_version, system, created_at, updated_at) VALUES (?, 1, 1, ?, ?)", id, now, now);
    sql.exec(
      `INSERT OR IGNORE INTO assistant_versions (assistant_id, version, graph_id, name, description, config, context, metadata, created_at)
       VALUES (?, 1, ?, ?, NULL, '{}', '{}', ?, ?)`,
      id,
      graphId,
      graphId,
      JSON.stringify({ created_by: "system" }),
      now,
    );
  }
}

/** A JSON column's value. */
export const parseJson = <T = Record<string, unknown>>(text: string): T => JSON.parse(text) as T;

/**
 * Postgres' `jsonb @>` as the real server filters metadata: every key of `subset` is in
 * `superset` with an equal value (objects compared recursively).
 */
export function contains(superset: unknown, subset: unknown): boolean {
  if (subset === null || typeof subset !== "object" || Array.isArray(subset)) return JSON.stringify(superset) === JSON.stringify(subset);
  if (superset === null || typeof superset !== "object" || Array.isArray(superset)) return false;
  return Object.entries(subset).every(([key, value]) => key in superset && contains((superset as Record<string, unknown>)[key], value));
}
