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
  // The run engine (runs/engine.ts): what a run needs beyond its record. `graph_id` is the graph
  // of the assistant version active when the run was created. `attempt` counts the
  // starts (a run resumed after the object restarted is attempt 2); `cancel_action` is a cancel
  // asked for while the run ran, kept so a resumed run honours it; `result` is what wait and
  // join answer once the run is over; `start_at` is when (on the object's clock, epoch ms) a run
  // created with `after_seconds` may start (0: at once).
  `CREATE TABLE IF NOT EXISTS run_progress (
    run_id TEXT PRIMARY KEY,
    graph_id TEXT NOT NULL,
    step_delay_ms INTEGER NOT NULL,
    attempt INTEGER NOT NULL DEFAULT 0,
    cancel_action TEXT,
    on_disconnect TEXT NOT NULL DEFAULT 'continue',
    temporary INTEGER NOT NULL DEFAULT 0,
    result TEXT,
    start_at INTEGER NOT NULL DEFAULT 0
  )`,
  // Every event a run streamed, in order (`seq` is the SSE id), so a client can join a run late
  // or reconnect after a dropped stream and get what it missed. `scope` 'thread' marks events only
  // the thread stream shows (run_done, state_update).
  `CREATE TABLE IF NOT EXISTS run_events (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    thread_id TEXT NOT NULL,
    run_id TEXT,
    scope TEXT NOT NULL DEFAULT 'run',
    event TEXT NOT NULL,
    data TEXT NOT NULL
  )`,
  `CREATE INDEX IF NOT EXISTS run_events_by_run ON run_events (run_id, seq)`,
  `CREATE INDEX IF NOT EXISTS run_events_by_thread ON run_events (thread_id, seq)`,
  // A thread's checkpoints (threads/checkpoints.ts): one after a run's input and one per node
  // step, as LangGraph saves them, so state, history and copy read real ones. `seq` orders them;
  // a copied thread keeps the ids (unique per thread), as LangGraph's copy does.
  `CREATE TABLE IF NOT EXISTS checkpoints (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    checkpoint_id TEXT NOT NULL,
    thread_id TEXT NOT NULL,
    parent_checkpoint_id TEXT,
    run_id TEXT,
    step INTEGER NOT NULL,
    source TEXT NOT NULL,
    state_values TEXT NOT NULL,
    next TEXT NOT NULL,
    tasks TEXT NOT NULL,
    metadata TEXT NOT NULL,
    created_at TEXT NOT NULL,
    UNIQUE (thread_id, checkpoint_id)
  )`,
  `CREATE INDEX IF NOT EXISTS checkpoints_by_thread ON checkpoints (thread_id, seq)`,
  `CREATE INDEX IF NOT EXISTS checkpoints_by_run ON checkpoints (run_id)`,
  // The store (store/item-store.ts): one row per (namespace, key), the namespace's labels joined
  // with "." as the real server's Postgres store keeps them. Times are milliseconds on the
  // object's clock (system/clock.ts), so expiry compares numbers.
  `CREATE TABLE IF NOT EXISTS store_items (
    namespace TEXT NOT NULL,
    key TEXT NOT NULL,
    value TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    ttl_minutes REAL,
    expires_at INTEGER,
    PRIMARY KEY (namespace, key)
  )`,
  `CREATE INDEX IF NOT EXISTS store_items_by_expiry ON store_items (expires_at) WHERE expires_at IS NOT NULL`,
  // Crons (crons/cron-store.ts): `thread_id` is null for a stateless cron (a new thread per run);
  // times are milliseconds on the object's clock, `next_run_date` null once the schedule is over.
  `CREATE TABLE IF NOT EXISTS crons (
    cron_id TEXT PRIMARY KEY,
    assistant_id TEXT NOT NULL,
    thread_id TEXT,
    on_run_completed TEXT,
    end_time INTEGER,
    schedule TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    payload TEXT NOT NULL,
    next_run_date INTEGER,
    metadata TEXT NOT NULL,
    enabled INTEGER NOT NULL
  )`,
  `CREATE INDEX IF NOT EXISTS crons_by_next_run ON crons (next_run_date)`,
];

/** Creates the tables (idempotent: runs every time the object starts). */
export function migrate(sql: SqlStorage): void {
  for (const statement of TABLES) sql.exec(statement);
  // State kept by `npm start` from before runs could wait (`after_seconds`) lacks the column.
  const columns = sql.exec<{ name: string }>("PRAGMA table_info(run_progress)").toArray();
  if (!columns.some((c) => c.name === "start_at")) sql.exec("ALTER TABLE run_progress ADD COLUMN start_at INTEGER NOT NULL DEFAULT 0");
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
