import { RpcTarget } from "cloudflare:workers";
import { ok, type Result } from "../../shared/result.ts";
import { page, type Page } from "../page.ts";
import type { WorkspaceSettings } from "../workspace-settings.ts";
import { allowsListeners, duplicateComputeId, immutableField, listenerNotFound, listenersNotAllowed } from "./refusals.ts";
import { COMPUTE_TYPE, type Listener, type ListenerChange, type ListenerCreateRequest } from "./schema.ts";

interface ListenerRow extends Record<string, SqlStorageValue> {
  id: string;
  compute_type: string;
  compute_id: string;
  compute_config: string;
  version: string | null;
  created_at: string;
  updated_at: string;
}

const COLUMNS = "id, compute_type, compute_id, compute_config, version, created_at, updated_at";

/**
 * Listeners of one workspace, in the workspace's SQLite. Every method runs inside the workspace's
 * Durable Object without awaiting, so each is atomic with respect to the others: the UNIQUE
 * `compute_id` plus that serialization make concurrent duplicate creates yield exactly one
 * listener. Every method checks the workspace's plan first (403 before 404 or 409).
 */
export class ListenerStore extends RpcTarget {
  readonly #ctx: DurableObjectState;
  readonly #sql: SqlStorage;
  readonly #settings: WorkspaceSettings;

  constructor(ctx: DurableObjectState, settings: WorkspaceSettings) {
    super();
    this.#ctx = ctx;
    this.#sql = ctx.storage.sql;
    this.#settings = settings;
    // The table is per object, so compute_id is unique per workspace, as the real API requires.
    this.#sql.exec(`CREATE TABLE IF NOT EXISTS listeners (
      id TEXT PRIMARY KEY,
      compute_type TEXT NOT NULL,
      compute_id TEXT NOT NULL UNIQUE,
      compute_config TEXT NOT NULL,
      version TEXT,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL
    )`);
    this.#sql.exec("CREATE INDEX IF NOT EXISTS listeners_by_creation ON listeners (created_at, id)");
  }

  /** A liveness probe (used by the skeleton test to prove RPC pipelining reaches the store). */
  ping(): string {
    return `listeners of ${this.#ctx.id.toString().slice(0, 8)}`;
  }

  /** One page in creation order (created_at, then id, so pages never overlap or skip). */
  list(workspaceId: string, limit: number, offset: number): Result<Page<Listener>> {
    const denied = this.#deny(workspaceId);
    if (denied) return denied;
    const rows = this.#sql.exec<ListenerRow>(`SELECT ${COLUMNS} FROM listeners ORDER BY created_at, id LIMIT ? OFFSET ?`, limit, offset).toArray();
    return ok(page(rows.map(toListener), offset));
  }

  /** Registers a listener; 409 when the workspace already has one for this compute id. */
  create(workspaceId: string, request: ListenerCreateRequest): Result<Listener> {
    const denied = this.#deny(workspaceId);
    if (denied) return denied;
    const now = new Date().toISOString();
    const inserted = this.#sql
      .exec<ListenerRow>(
        `INSERT INTO listeners (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (compute_id) DO NOTHING RETURNING ${COLUMNS}`,
        crypto.randomUUID(),
        request.compute_type,
        request.compute_id,
        JSON.stringify(request.compute_config),
        request.version,
        now,
        now,
      )
      .toArray()[0];
    return inserted ? ok(toListener(inserted)) : duplicateComputeId(workspaceId, request.compute_id);
  }

  /** The listener with this id, or 404. */
  get(workspaceId: string, listenerId: string): Result<Listener> {
    const denied = this.#deny(workspaceId);
    if (denied) return denied;
    const row = this.#row(listenerId);
    return row ? ok(toListener(row)) : listenerNotFound(listenerId);
  }

  /**
   * Applies a change (PATCH or PUT). A `compute_type` or `compute_id` other than the stored one is
   * refused whole: nothing is written. `updated_at` always moves forward.
   */
  update(workspaceId: string, listenerId: string, change: ListenerChange): Result<Listener> {
    const denied = this.#deny(workspaceId);
    if (denied) return denied;
    const row = this.#row(listenerId);
    if (!row) return listenerNotFound(listenerId);
    const current = toListener(row);
    if (change.compute_type !== undefined && change.compute_type !== current.compute_type) {
      return immutableField(listenerId, "compute_type", current.compute_type, change.compute_type);
    }
    if (change.compute_id !== undefined && change.compute_id !== current.compute_id) {
      return immutableField(listenerId, "compute_id", current.compute_id, change.compute_id);
    }
    const updated: Listener = {
      ...current,
      compute_config: change.compute_config ?? current.compute_config,
      version: change.version === undefined ? current.version : change.version,
      updated_at: after(current.updated_at),
    };
    this.#sql.exec(
      "UPDATE listeners SET compute_config = ?, version = ?, updated_at = ? WHERE id = ?",
      JSON.stringify(updated.compute_config),
      updated.version,
      updated.updated_at,
      listenerId,
    );
    return ok(updated);
  }

  /** Deletes the listener, or 404. */
  remove(workspaceId: string, listenerId: string): Result<null> {
    const denied = this.#deny(workspaceId);
    if (denied) return denied;
    const deleted = this.#sql.exec("DELETE FROM listeners WHERE id = ? RETURNING id", listenerId).toArray();
    return deleted.length > 0 ? ok(null) : listenerNotFound(listenerId);
  }

  #deny(workspaceId: string): Result<never> | undefined {
    const { plan } = this.#settings.get(workspaceId);
    return allowsListeners(plan) ? undefined : listenersNotAllowed(workspaceId);
  }

  #row(listenerId: string): ListenerRow | undefined {
    return this.#sql.exec<ListenerRow>(`SELECT ${COLUMNS} FROM listeners WHERE id = ?`, listenerId).toArray()[0];
  }
}

function toListener(row: ListenerRow): Listener {
  return {
    id: row.id,
    compute_type: row.compute_type as typeof COMPUTE_TYPE,
    compute_id: row.compute_id,
    compute_config: JSON.parse(row.compute_config) as Listener["compute_config"],
    version: row.version,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/**
 * Now, or 1 ms after `previous` if the clock has not moved past it: a Durable Object's clock only
 * advances across I/O, and two writes in one millisecond must still give a newer `updated_at`.
 */
function after(previous: string): string {
  return new Date(Math.max(Date.now(), Date.parse(previous) + 1)).toISOString();
}
