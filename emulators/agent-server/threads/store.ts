import { RpcTarget } from "cloudflare:workers";
import { timestamp } from "../clock.ts";
import type { JsonObject } from "../../shared/pydantic/json.ts";
import { ok, refuse, type Result } from "../../shared/result.ts";
import type { ThreadValues } from "../graphs/graph.ts";
import { parseJson } from "../storage.ts";
import type { Thread, ThreadCreate, ThreadStatus } from "./schema.ts";
import type { ThreadExpiry, ThreadTtlInfo, ThreadTtlRequest } from "./ttl.ts";

/** What the thread store needs besides its storage: the expiry of threads with a TTL, and the alarm. */
export interface ThreadStoreDeps {
  /**
   * Removes what else belongs to a thread being deleted (its runs, checkpoints and events; a run
   * in progress is stopped): the state object wires it to the run engine.
   */
  readonly forget?: (threadId: string) => void;
  readonly expiry?: ThreadExpiry;
  /** Sets the object's alarm anew after an expiry changed (alarms.ts). */
  readonly rearm?: () => void;
}

type Row = {
  thread_id: string;
  created_at: string;
  updated_at: string;
  state_updated_at: string;
  metadata: string;
  status: string;
  config: string;
  state_values: string;
  interrupts: string;
};

/** Threads: their metadata, status and current values (runs write those). */
export class ThreadStore extends RpcTarget {
  readonly #storage: DurableObjectStorage;
  readonly #deps: ThreadStoreDeps;

  constructor(storage: DurableObjectStorage, deps: ThreadStoreDeps = {}) {
    super();
    this.#storage = storage;
    this.#deps = deps;
  }

  /** POST /threads: a new idle thread with no values, or the existing one with `if_exists: do_nothing`. */
  create(id: string, input: ThreadCreate): Result<Thread> {
    return this.#storage.transactionSync(() => {
      const existing = this.find(id);
      if (existing) return alreadyThere(existing, input);
      const thread = this.insert(id, input.metadata ?? {});
      this.setTtl(id, input.ttl);
      return ok(thread);
    });
  }

  /**
   * Sets the thread's TTL (POST /threads, PATCH /threads/{id}): swept `ttl` minutes from now by
   * the state object's alarm (threads/ttl.ts). Without `ttl` minutes nothing changes.
   */
  setTtl(id: string, ttl: ThreadTtlRequest | undefined): void {
    if (ttl?.ttl === undefined || !this.#deps.expiry) return;
    this.#deps.expiry.set(id, ttl);
    this.#deps.rearm?.();
  }

  /** GET /threads/{id}; with `ttl` (`?include=ttl`), the thread's TTL when it has one. */
  get(id: string, include: { readonly ttl?: boolean } = {}): Result<Thread & { ttl?: ThreadTtlInfo }> {
    const thread = this.find(id);
    if (!thread) return notFound(id);
    const ttl = include.ttl ? this.#deps.expiry?.info(id) : undefined;
    return ok(ttl ? { ...thread, ttl } : thread);
  }

  /** DELETE /threads/{id}: the thread, its runs (one in progress stops), checkpoints and events. */
  delete(id: string): Result<null> {
    return this.#storage.transactionSync(() => {
      if (!this.find(id)) return notFound(id);
      this.#deps.forget?.(id);
      this.#deps.expiry?.forget(id);
      this.#storage.sql.exec("DELETE FROM runs WHERE thread_id = ?", id);
      this.#storage.sql.exec("DELETE FROM threads WHERE thread_id = ?", id);
      return ok(null);
    });
  }

  /** A run was created on the thread: it is busy, and stamped with the graph and assistant it runs. */
  markBusy(id: string, stamp: JsonObject): void {
    const thread = this.find(id);
    if (!thread) return;
    this.#storage.sql.exec(
      "UPDATE threads SET status = 'busy', metadata = ?, updated_at = ? WHERE thread_id = ?",
      JSON.stringify({ ...thread.metadata, ...stamp }),
      timestamp(),
      id,
    );
  }

  /**
   * Its runs are over (or one ended and others wait): the status, the values they left, and the
   * interrupts pending (by task id; none unless a run paused).
   */
  settle(id: string, status: ThreadStatus, values: ThreadValues, interrupts: JsonObject = {}): void {
    this.#storage.sql.exec(
      "UPDATE threads SET status = ?, state_values = ?, interrupts = ?, updated_at = ? WHERE thread_id = ?",
      status,
      JSON.stringify(values),
      JSON.stringify(interrupts),
      timestamp(),
      id,
    );
  }

  /** The thread, or undefined. Also used by the run store. */
  find(id: string): Thread | undefined {
    // The state's last change is its latest checkpoint (every change writes one); none yet: its creation.
    const row = this.#storage.sql
      .exec<Row>(
        `SELECT threads.*, COALESCE((SELECT created_at FROM checkpoints WHERE checkpoints.thread_id = threads.thread_id ORDER BY seq DESC LIMIT 1), threads.created_at) AS state_updated_at
         FROM threads WHERE thread_id = ?`,
        id,
      )
      .toArray()[0];
    return row ? toThread(row) : undefined;
  }

  /** Stores a new idle thread (for POST /threads, and runs with `if_not_exists: create`). */
  insert(id: string, metadata: JsonObject): Thread {
    const now = timestamp();
    this.#storage.sql.exec(
      "INSERT INTO threads (thread_id, created_at, updated_at, metadata, status, config, state_values, interrupts) VALUES (?, ?, ?, ?, 'idle', '{}', '{}', '{}')",
      id,
      now,
      now,
      JSON.stringify(metadata),
    );
    return this.find(id)!;
  }
}

/** POST /threads for a thread id that is taken: the thread with `if_exists: do_nothing`, else a 409. */
export const alreadyThere = (existing: Thread, input: Pick<ThreadCreate, "if_exists">): Result<Thread> =>
  input.if_exists === "do_nothing"
    ? ok(existing)
    : refuse(409, `Thread ${existing.thread_id} already exists. Send "if_exists": "do_nothing" to get the existing thread instead.`);

/** The 404 for a thread id nobody created (or that was deleted). */
export const notFound = (id: string) => refuse(404, `Thread ${id} not found.`);

function toThread(row: Row): Thread {
  return {
    thread_id: row.thread_id,
    created_at: row.created_at,
    updated_at: row.updated_at,
    state_updated_at: row.state_updated_at,
    metadata: parseJson(row.metadata),
    status: row.status as ThreadStatus,
    config: parseJson(row.config),
    values: parseJson(row.state_values),
    interrupts: parseJson(row.interrupts),
  };
}
