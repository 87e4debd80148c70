import type { ServerSentEvent } from "../../shared/sse.ts";
import { parseJson } from "../storage.ts";
import { EventQueue } from "./event-queue.ts";
import type { EventScope, LoggedEvent } from "./logged-event.ts";

export type { EventScope, LoggedEvent } from "./logged-event.ts";

type Row = { seq: number; run_id: string | null; scope: string; event: string; data: string };

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

  constructor(sql: SqlStorage) {
    this.#sql = sql;
  }

  /** Saves an event and passes it to the streams listening to its run and its thread. */
  append(threadId: string, runId: string | null, { event, data }: ServerSentEvent, scope: EventScope = "run"): LoggedEvent {
    const { seq } = this.#sql
      .exec<{ seq: number }>("INSERT INTO run_events (thread_id, run_id, scope, event, data) VALUES (?, ?, ?, ?, ?) RETURNING seq", threadId, runId, scope, event, JSON.stringify(data ?? null))
      .one();
    const logged: LoggedEvent = { seq, runId, scope, event, data };
    if (scope === "run" && runId !== null) for (const queue of this.#byRun.get(runId) ?? []) queue.push(logged);
    for (const queue of this.#byThread.get(threadId) ?? []) queue.push(logged);
    return logged;
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
    this.endRun(runId);
  }

  /** Forgets a deleted thread's events and ends its streams. */
  deleteThread(threadId: string): void {
    this.#sql.exec("DELETE FROM run_events WHERE thread_id = ?", threadId);
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
