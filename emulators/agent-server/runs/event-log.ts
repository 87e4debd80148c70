import type { ServerSentEvent } from "../../shared/sse.ts";
import { parseJson } from "../storage.ts";
import { EventQueue } from "./event-queue.ts";
import type { EventScope, LoggedEvent } from "./logged-event.ts";

export type { EventScope, LoggedEvent } from "./logged-event.ts";

type Row = { seq: number; run_id: string | null; scope: string; event: string; data: string };

/**
 * How many events a thread keeps (its runs' and its own); older ones are pruned as new ones are
 * saved, so a thread's event storage stops growing with its run count. A run of the bundled graphs
 * writes 3 to 8 events (metadata, values and updates per step, run_done), so this keeps the last
 * 125 runs or more replayable in full: clients rejoin the run in flight or one just over, never one
 * a hundred runs back, and the state and history of old runs stay in the checkpoints.
 */
export const EVENTS_PER_THREAD = 1_000;

/**
 * Every event a run streams, saved as it happens and handed at once to the streams listening: a
 * stream opened late (join) or again (a reconnect with Last-Event-ID) replays what it missed from
 * storage, then listens. Replay and listening start in one synchronous step, so no event falls
 * between them or comes twice.
 */
export class RunEventLog {
  readonly #sql: SqlStorage;
  readonly #byRun = new Map<string, Set<EventQueue<LoggedEvent>>>();
  readonly #byThread = new Map<string, Set<EventQueue<LoggedEvent>>>();

  readonly #bound: number;

  /** `bound`: the events a thread keeps ({@link EVENTS_PER_THREAD}; tests of the pruning pass less). */
  constructor(sql: SqlStorage, bound: number = EVENTS_PER_THREAD) {
    this.#sql = sql;
    this.#bound = bound;
    // The runs some of whose events were pruned: a late joiner gets their outcome instead (see
    // `pruned`). Its own table, so run_events keeps the shape storage.ts gives it.
    sql.exec("CREATE TABLE IF NOT EXISTS run_events_pruned (run_id TEXT PRIMARY KEY, thread_id TEXT NOT NULL, through_seq INTEGER NOT NULL)");
  }

  /**
   * Saves an event and passes it to the streams listening to its run and its thread. The thread's
   * oldest events beyond the bound go in the same step.
   */
  append(threadId: string, runId: string | null, { event, data }: ServerSentEvent, scope: EventScope = "run"): LoggedEvent {
    const { seq } = this.#sql
      .exec<{ seq: number }>(
        "INSERT INTO run_events (thread_id, run_id, scope, event, data) VALUES (?, ?, ?, ?, ?) RETURNING seq",
        threadId,
        runId,
        scope,
        event,
        JSON.stringify(data ?? null),
      )
      .one();
    this.#prune(threadId);
    const logged: LoggedEvent = { seq, runId, scope, event, data };
    if (scope === "run" && runId !== null) for (const queue of this.#byRun.get(runId) ?? []) queue.push(logged);
    for (const queue of this.#byThread.get(threadId) ?? []) queue.push(logged);
    return logged;
  }

  /** Deletes the thread's events beyond the newest `bound`, noting the runs they belonged to. */
  #prune(threadId: string): void {
    const cut = this.#sql
      .exec<{ seq: number }>("SELECT seq FROM run_events WHERE thread_id = ? ORDER BY seq DESC LIMIT 1 OFFSET ?", threadId, this.#bound)
      .toArray()[0]?.seq;
    if (cut === undefined) return;
    this.#sql.exec(
      `INSERT INTO run_events_pruned (run_id, thread_id, through_seq)
       SELECT run_id, thread_id, MAX(seq) FROM run_events WHERE thread_id = ? AND seq <= ? AND run_id IS NOT NULL GROUP BY run_id
       ON CONFLICT (run_id) DO UPDATE SET through_seq = MAX(through_seq, excluded.through_seq)`,
      threadId,
      cut,
    );
    this.#sql.exec("DELETE FROM run_events WHERE thread_id = ? AND seq <= ?", threadId, cut);
  }

  /**
   * Whether some of the run's events were pruned (the thread went past its bound since), and the
   * id of the last one pruned: a stream of such a run cannot start from its first event.
   */
  pruned(runId: string): { readonly throughSeq: number } | undefined {
    const row = this.#sql.exec<{ through_seq: number }>("SELECT through_seq FROM run_events_pruned WHERE run_id = ?", runId).toArray()[0];
    return row ? { throughSeq: row.through_seq } : undefined;
  }

  /** How many events the thread keeps now (for the bound's test and its documentation). */
  countOfThread(threadId: string): number {
    return this.#sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM run_events WHERE thread_id = ?", threadId).one().n;
  }

  /** A run's events after `afterSeq` (0: from its first). */
  ofRun(runId: string, afterSeq: number): LoggedEvent[] {
    return this.#sql.exec<Row>("SELECT * FROM run_events WHERE run_id = ? AND scope = 'run' AND seq > ? ORDER BY seq", runId, afterSeq).toArray().map(toLogged);
  }

  /** A thread's events (its runs' and its own) after `afterSeq`. */
  ofThread(threadId: string, afterSeq: number): LoggedEvent[] {
    return this.#sql.exec<Row>("SELECT * FROM run_events WHERE thread_id = ? AND seq > ? ORDER BY seq", threadId, afterSeq).toArray().map(toLogged);
  }

  /** A queue that receives the run's next events until the run ends; `stop` when the stream goes. */
  listenToRun(runId: string): { queue: EventQueue<LoggedEvent>; stop: () => void } {
    return listen(this.#byRun, runId);
  }

  /** A queue that receives the thread's next events until the thread is deleted. */
  listenToThread(threadId: string): { queue: EventQueue<LoggedEvent>; stop: () => void } {
    return listen(this.#byThread, threadId);
  }

  /** The run is over: its streams end once they have sent what is queued. */
  endRun(runId: string): void {
    for (const queue of this.#byRun.get(runId) ?? []) queue.end();
    this.#byRun.delete(runId);
  }

  /** Forgets a run's events (a rollback, a deleted run) and ends its streams. */
  deleteRun(runId: string): void {
    this.#sql.exec("DELETE FROM run_events WHERE run_id = ?", runId);
    this.#sql.exec("DELETE FROM run_events_pruned WHERE run_id = ?", runId);
    this.endRun(runId);
  }

  /** Forgets a deleted thread's events and ends its streams. */
  deleteThread(threadId: string): void {
    this.#sql.exec("DELETE FROM run_events WHERE thread_id = ?", threadId);
    this.#sql.exec("DELETE FROM run_events_pruned WHERE thread_id = ?", threadId);
    for (const queue of this.#byThread.get(threadId) ?? []) queue.end();
    this.#byThread.delete(threadId);
  }
}

function listen(listeners: Map<string, Set<EventQueue<LoggedEvent>>>, key: string) {
  const queue = new EventQueue<LoggedEvent>();
  const set = listeners.get(key) ?? new Set();
  set.add(queue);
  listeners.set(key, set);
  const stop = () => {
    set.delete(queue);
    if (set.size === 0 && listeners.get(key) === set) listeners.delete(key);
    queue.end();
  };
  return { queue, stop };
}

function toLogged(row: Row): LoggedEvent {
  return { seq: row.seq, runId: row.run_id, scope: row.scope as EventScope, event: row.event, data: parseJson<unknown>(row.data) };
}
