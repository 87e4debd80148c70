import type { Wakeable } from "../alarms.ts";
import type { EmulatorClock } from "../system/clock.ts";

/** A thread's `ttl` as the API gives it: the strategy (only `delete`) and minutes until it is swept. */
export interface ThreadTtlRequest {
  readonly strategy?: "delete" | undefined;
  readonly ttl?: number | undefined;
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

  /** Forgets a deleted thread's expiry. */
  forget(threadId: string): void {
    this.#sql.exec("DELETE FROM thread_ttls WHERE thread_id = ?", threadId);
  }

  /** The threads whose TTL has run out, oldest expiry first. */
  expired(): string[] {
    return this.#sql
      .exec<{ thread_id: string }>("SELECT thread_id FROM thread_ttls WHERE expires_at <= ? ORDER BY expires_at, thread_id", this.#clock.now())
      .toArray()
      .map((row) => row.thread_id);
  }

  /** The earliest expiry (on the object's clock), or undefined when no thread has a TTL. */
  next(): number | undefined {
    return this.#sql.exec<{ at: number | null }>("SELECT MIN(expires_at) AS at FROM thread_ttls").one().at ?? undefined;
  }
}

/**
 * The thread sweep's claim on the state object's alarm (alarms.ts): wake at the earliest expiry
 * (turned into machine time), then delete every expired thread, with its runs (a run in flight
 * stops), checkpoints, events and crons, as DELETE /threads/{thread_id} does.
 */
export function threadSweep(expiry: ThreadExpiry, clock: EmulatorClock, deleteThread: (threadId: string) => void): Wakeable {
  return {
    nextWake() {
      const at = expiry.next();
      return at === undefined ? undefined : clock.machineTime(at);
    },
    wake() {
      for (const threadId of expiry.expired()) deleteThread(threadId);
    },
  };
}
