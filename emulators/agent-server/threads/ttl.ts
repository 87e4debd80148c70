import { CheckpointLedger } from "./checkpoints.ts";
import type { Wakeable } from "../alarms.ts";
import type { EmulatorClock } from "../system/clock.ts";

/**
 * A thread's `ttl` as the API gives it: the strategy (`delete` the thread, or `keep_latest`: prune
 * it to its latest checkpoint) and minutes until it is swept.
 */
export interface ThreadTtlRequest {
  readonly strategy?: "delete" | "keep_latest" | undefined;
  readonly ttl?: number | undefined;
}

/** A thread's TTL as the Thread resource shows it (`ttl`, only with `?include=ttl`). */
export interface ThreadTtlInfo {
  readonly strategy: "delete" | "keep_latest";
  readonly ttl_minutes: number;
  /** On the state object's clock. */
  readonly expires_at: string;
}

/**
 * When each thread with a `ttl` expires, on the state object's clock (system/clock.ts, which tests
 * move forward). A thread's TTL runs from its creation, or from the PATCH that set it last (the
 * document: "minutes from now until the thread should be swept"); a thread without one never
 * expires. Kept in a table of its own, so the threads table keeps the real server's columns.
 */
export class ThreadExpiry {
  readonly #sql: SqlStorage;
  readonly #clock: EmulatorClock;

  constructor(sql: SqlStorage, clock: EmulatorClock) {
    this.#sql = sql;
    this.#clock = clock;
    sql.exec(`CREATE TABLE IF NOT EXISTS thread_ttls (
      thread_id TEXT PRIMARY KEY,
      strategy TEXT NOT NULL,
      ttl_minutes REAL NOT NULL,
      expires_at INTEGER NOT NULL
    )`);
    sql.exec("CREATE INDEX IF NOT EXISTS thread_ttls_by_expiry ON thread_ttls (expires_at)");
  }

  /** Sets (or, with no `ttl` minutes, leaves) the thread's expiry: `ttl` minutes from now. */
  set(threadId: string, request: ThreadTtlRequest | undefined): void {
    if (request?.ttl === undefined) return;
    this.#sql.exec(
      "INSERT OR REPLACE INTO thread_ttls (thread_id, strategy, ttl_minutes, expires_at) VALUES (?, ?, ?, ?)",
      threadId,
      request.strategy ?? "delete",
      request.ttl,
      Math.round(this.#clock.now() + request.ttl * 60_000),
    );
  }

  /** The thread's TTL as GET /threads/{id}?include=ttl shows it, or undefined when it has none. */
  info(threadId: string): ThreadTtlInfo | undefined {
    const row = this.#sql
      .exec<{ strategy: string; ttl_minutes: number; expires_at: number }>(
        "SELECT strategy, ttl_minutes, expires_at FROM thread_ttls WHERE thread_id = ?",
        threadId,
      )
      .toArray()[0];
    return row
      ? { strategy: row.strategy as ThreadTtlInfo["strategy"], ttl_minutes: row.ttl_minutes, expires_at: new Date(row.expires_at).toISOString() }
      : undefined;
  }

  /** Forgets a deleted thread's expiry. */
  forget(threadId: string): void {
    this.#sql.exec("DELETE FROM thread_ttls WHERE thread_id = ?", threadId);
  }

  /** The threads whose TTL has run out, oldest expiry first, with what to do to each. */
  expired(): { readonly threadId: string; readonly strategy: "delete" | "keep_latest" }[] {
    return this.#sql
      .exec<{ thread_id: string; strategy: string }>(
        "SELECT thread_id, strategy FROM thread_ttls WHERE expires_at <= ? ORDER BY expires_at, thread_id",
        this.#clock.now(),
      )
      .toArray()
      .map((row) => ({ threadId: row.thread_id, strategy: row.strategy === "keep_latest" ? "keep_latest" : "delete" }));
  }

  /**
   * A `keep_latest` TTL ran out: the thread keeps its latest checkpoint only, and its TTL is done
   * (set one again with PATCH /threads/{id} to prune again).
   */
  pruneToLatest(threadId: string): void {
    new CheckpointLedger(this.#sql).keepLatest(threadId);
    this.forget(threadId);
  }

  /** The earliest expiry (on the object's clock), or undefined when no thread has a TTL. */
  next(): number | undefined {
    return this.#sql.exec<{ at: number | null }>("SELECT MIN(expires_at) AS at FROM thread_ttls").one().at ?? undefined;
  }
}

/**
 * The thread sweep's claim on the state object's alarm (alarms.ts): wake at the earliest expiry
 * (turned into machine time), then delete every expired thread, with its runs (a run in flight
 * stops), checkpoints, events and crons, as DELETE /threads/{thread_id} does; a thread whose
 * strategy is `keep_latest` is pruned to its latest checkpoint instead.
 */
export function threadSweep(expiry: ThreadExpiry, clock: EmulatorClock, deleteThread: (threadId: string) => void): Wakeable {
  return {
    nextWake() {
      const at = expiry.next();
      return at === undefined ? undefined : clock.machineTime(at);
    },
    wake() {
      for (const { threadId, strategy } of expiry.expired()) {
        if (strategy === "keep_latest") expiry.pruneToLatest(threadId);
        else deleteThread(threadId);
      }
    },
  };
}
