import { parseJson } from "../../storage.ts";
import type { ProtocolEvent } from "./envelope.ts";

/**
 * How many protocol events a thread keeps for replay; older ones go as new ones are buffered. A
 * run of the bundled graphs buffers 4 to 9 (lifecycle, values and updates per step, input
 * requests), so this replays the last hundred runs or more: a client resumes the run it follows,
 * never one a hundred runs back (docs/agent-server.md, "Protocol v2").
 */
export const PROTOCOL_EVENTS_PER_THREAD = 1_000;

/**
 * How many bytes of events (their params' JSON) a thread keeps, whatever their number: a `values`
 * event carries the whole state, so a thread with a large state would otherwise keep (and replay
 * to a `since=0`) a thousand copies of it. 4 MiB holds the latest run of any thread whose state is
 * below about 1 MiB (a run writes two to four `values`); the newest event is kept whatever its size.
 */
export const PROTOCOL_EVENT_BYTES_PER_THREAD = 4 * 1024 * 1024;

/** The bounds of what a thread keeps; tests of the pruning pass less. */
export interface BufferBounds {
  readonly events?: number;
  readonly bytes?: number;
}

type Row = { seq: number; run_id: string | null; method: string; params: string; bytes: number };

/** Who hears a thread's events as they are buffered (an open SSE stream's queue), until `end`. */
export interface Listener {
  push(event: ProtocolEvent): void;
  end(): void;
}

/**
 * Every thread's protocol v2 events, buffered as runs emit them (protocols/v2/run-events.ts) and
 * handed at once to whoever listens: the SSE streams of the thread (in memory, one listener each,
 * gone when the stream goes) and the object's sockets (`publish`). `seq` increases across the
 * whole object and survives a restart (SQLite), so a client's `since` never points into a reused
 * range. Replay and listening start in one synchronous step, so no event falls between them.
 */
export class ProtocolEventBuffer {
  readonly #sql: SqlStorage;
  readonly #maxEvents: number;
  readonly #maxBytes: number;
  readonly #listeners = new Map<string, Set<Listener>>();
  readonly #publish: (threadId: string, event: ProtocolEvent) => void;

  /** `publish`: the sockets' side (protocols/v2/sockets.ts). */
  constructor(sql: SqlStorage, publish: (threadId: string, event: ProtocolEvent) => void, bounds: BufferBounds = {}) {
    this.#sql = sql;
    this.#maxEvents = bounds.events ?? PROTOCOL_EVENTS_PER_THREAD;
    this.#maxBytes = bounds.bytes ?? PROTOCOL_EVENT_BYTES_PER_THREAD;
    this.#publish = publish;
    sql.exec(
      `CREATE TABLE IF NOT EXISTS protocol_events (
         seq INTEGER PRIMARY KEY AUTOINCREMENT, thread_id TEXT NOT NULL, run_id TEXT, method TEXT NOT NULL, params TEXT NOT NULL,
         bytes INTEGER NOT NULL DEFAULT 0)`,
    );
    // A table made before events had their size gets the column, its rows their size.
    if (
      !sql
        .exec<{ name: string }>("PRAGMA table_info(protocol_events)")
        .toArray()
        .some((column) => column.name === "bytes")
    ) {
      sql.exec("ALTER TABLE protocol_events ADD COLUMN bytes INTEGER NOT NULL DEFAULT 0");
      sql.exec("UPDATE protocol_events SET bytes = length(CAST(params AS BLOB))");
    }
    sql.exec("DROP INDEX IF EXISTS protocol_events_by_thread");
    // Covering the sizes, so the byte bound is summed from the index, never from the events' text.
    sql.exec("CREATE INDEX IF NOT EXISTS protocol_events_by_thread_size ON protocol_events (thread_id, seq, bytes)");
  }

  /** Buffers an event of the root namespace and hands it to the thread's listeners and sockets. */
  append(threadId: string, runId: string | null, method: string, data: unknown, timestamp: number): ProtocolEvent {
    const params = { namespace: [] as string[], timestamp, data };
    const text = JSON.stringify(params);
    const { seq } = this.#sql
      .exec<{ seq: number }>(
        "INSERT INTO protocol_events (thread_id, run_id, method, params, bytes) VALUES (?, ?, ?, ?, ?) RETURNING seq",
        threadId,
        runId,
        method,
        text,
        new TextEncoder().encode(text).byteLength,
      )
      .one();
    this.#prune(threadId, seq);
    const event: ProtocolEvent = { type: "event", event_id: String(seq), seq, method, params };
    for (const listener of this.#listeners.get(threadId) ?? []) listener.push(event);
    this.#publish(threadId, event);
    return event;
  }

  /**
   * What a new connection or subscription replays: with `since`, every buffered event after it;
   * without, the thread's latest run from its first event (the run in flight or just over, as the
   * real server's run session), so a client that subscribes after `run.start` sees the whole run.
   */
  replay(threadId: string, since?: number): ProtocolEvent[] {
    const from =
      since !== undefined
        ? since + 1
        : (this.#sql
            .exec<{ seq: number }>(
              `SELECT MIN(seq) AS seq FROM protocol_events WHERE thread_id = ? AND run_id =
                 (SELECT run_id FROM protocol_events WHERE thread_id = ? AND run_id IS NOT NULL ORDER BY seq DESC LIMIT 1)`,
              threadId,
              threadId,
            )
            .one().seq ?? Number.MAX_SAFE_INTEGER);
    return this.#sql.exec<Row>("SELECT * FROM protocol_events WHERE thread_id = ? AND seq >= ? ORDER BY seq", threadId, from).toArray().map(toEvent);
  }

  /**
   * Drops the thread's oldest events beyond either bound: past the newest `maxEvents`, and past
   * the newest that fit in `maxBytes` together. The newest event (`newest`) always stays.
   */
  #prune(threadId: string, newest: number): void {
    const { cutoff } = this.#sql
      .exec<{ cutoff: number | null }>(
        `SELECT MAX(seq) AS cutoff FROM (
           SELECT seq, ROW_NUMBER() OVER newer AS position, SUM(bytes) OVER newer AS held
           FROM protocol_events WHERE thread_id = ? WINDOW newer AS (ORDER BY seq DESC))
         WHERE (position > ? OR held > ?) AND seq < ?`,
        threadId,
        this.#maxEvents,
        this.#maxBytes,
        newest,
      )
      .one();
    if (cutoff !== null) this.#sql.exec("DELETE FROM protocol_events WHERE thread_id = ? AND seq <= ?", threadId, cutoff);
  }

  /** The highest seq the thread has buffered (0 before its first event): `applied_through_seq`. */
  latestSeq(threadId: string): number {
    return this.#sql.exec<{ seq: number | null }>("SELECT MAX(seq) AS seq FROM protocol_events WHERE thread_id = ?", threadId).one().seq ?? 0;
  }

  /** How many events the thread keeps now (the bound's test). */
  countOfThread(threadId: string): number {
    return this.#sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM protocol_events WHERE thread_id = ?", threadId).one().n;
  }

  /** How many bytes of events the thread keeps now (the bound's test). */
  bytesOfThread(threadId: string): number {
    return this.#sql.exec<{ n: number | null }>("SELECT SUM(bytes) AS n FROM protocol_events WHERE thread_id = ?", threadId).one().n ?? 0;
  }

  /** Hears the thread's next events until `stop`. */
  listen(threadId: string, listener: Listener): () => void {
    const set = this.#listeners.get(threadId) ?? new Set();
    set.add(listener);
    this.#listeners.set(threadId, set);
    return () => {
      set.delete(listener);
      if (set.size === 0 && this.#listeners.get(threadId) === set) this.#listeners.delete(threadId);
    };
  }

  /** How many streams listen to the thread (0 once every connection closed: nothing left behind). */
  listenerCount(threadId: string): number {
    return this.#listeners.get(threadId)?.size ?? 0;
  }

  /** A deleted thread's events go with it, and its streams end. */
  deleteThread(threadId: string): void {
    this.#sql.exec("DELETE FROM protocol_events WHERE thread_id = ?", threadId);
    for (const listener of this.#listeners.get(threadId) ?? []) listener.end();
    this.#listeners.delete(threadId);
  }
}

function toEvent(row: Row): ProtocolEvent {
  return { type: "event", event_id: String(row.seq), seq: row.seq, method: row.method, params: parseJson<ProtocolEvent["params"]>(row.params) };
}
