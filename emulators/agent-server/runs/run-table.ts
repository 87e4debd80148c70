import { timestamp } from "../clock.ts";
import type { JsonObject, JsonValue } from "../../shared/pydantic/json.ts";
import { parseJson } from "../storage.ts";
import type { CancelAction, Run, RunStatus } from "./schema.ts";

/** What the engine keeps about a run besides its record (the run_progress table). */
export interface RunProgress {
  /** The graph of the assistant version active when the run was created. */
  readonly graphId: string;
  readonly stepDelayMs: number;
  readonly attempt: number;
  readonly cancelAction: CancelAction | null;
  readonly onDisconnect: "cancel" | "continue";
  /** A stateless run's thread, deleted when the run ends (`on_completion: delete`). */
  readonly temporary: boolean;
  /** What wait and join answer, once the run is over. */
  readonly result: JsonValue | undefined;
  /** When it may start, on the object's clock (epoch ms; 0: at once): `after_seconds`. */
  readonly startAt: number;
}

/** A new run: its record, and how the engine runs it. */
export interface NewRun {
  readonly run: Omit<Run, "created_at" | "updated_at" | "status">;
  readonly graphId: string;
  readonly stepDelayMs: number;
  readonly onDisconnect: "cancel" | "continue";
  readonly temporary: boolean;
  /** When it may start, on the object's clock (epoch ms; 0: at once). */
  readonly startAt: number;
}

type Row = {
  run_id: string;
  thread_id: string;
  assistant_id: string;
  created_at: string;
  updated_at: string;
  status: string;
  metadata: string;
  kwargs: string;
  multitask_strategy: string;
};

type ProgressRow = {
  graph_id: string;
  step_delay_ms: number;
  attempt: number;
  cancel_action: string | null;
  on_disconnect: string;
  temporary: number;
  result: string | null;
  start_at: number;
};

/** The runs and their progress: synchronous SQL inside the state object. */
export class RunTable {
  readonly #sql: SqlStorage;

  constructor(sql: SqlStorage) {
    this.#sql = sql;
  }

  /** Stores a run as `pending`: the engine starts it when its thread is free. */
  insert({ run, graphId, stepDelayMs, onDisconnect, temporary, startAt }: NewRun): Run {
    const at = timestamp();
    this.#sql.exec(
      `INSERT INTO runs (run_id, thread_id, assistant_id, created_at, updated_at, status, metadata, kwargs, multitask_strategy, lease_expires_at)
       VALUES (?, ?, ?, ?, ?, 'pending', ?, ?, ?, 0)`,
      run.run_id,
      run.thread_id,
      run.assistant_id,
      at,
      at,
      JSON.stringify(run.metadata),
      JSON.stringify(run.kwargs),
      run.multitask_strategy,
    );
    this.#sql.exec(
      "INSERT INTO run_progress (run_id, graph_id, step_delay_ms, on_disconnect, temporary, start_at) VALUES (?, ?, ?, ?, ?, ?)",
      run.run_id,
      graphId,
      stepDelayMs,
      onDisconnect,
      temporary ? 1 : 0,
      startAt,
    );
    return this.find(run.run_id)!;
  }

  find(runId: string): Run | undefined {
    const row = this.#sql.exec<Row>("SELECT * FROM runs WHERE run_id = ?", runId).toArray()[0];
    return row ? toRun(row) : undefined;
  }

  progress(runId: string): RunProgress | undefined {
    const row = this.#sql.exec<ProgressRow>("SELECT * FROM run_progress WHERE run_id = ?", runId).toArray()[0];
    if (!row) return undefined;
    return {
      graphId: row.graph_id,
      stepDelayMs: row.step_delay_ms,
      attempt: row.attempt,
      cancelAction: row.cancel_action as CancelAction | null,
      onDisconnect: row.on_disconnect === "cancel" ? "cancel" : "continue",
      temporary: row.temporary === 1,
      result: row.result === null ? undefined : parseJson<JsonValue>(row.result),
      startAt: row.start_at,
    };
  }

  /** A thread's runs, newest first. */
  ofThread(threadId: string, filter: { readonly status?: RunStatus | undefined; readonly limit: number; readonly offset: number }): Run[] {
    const status = filter.status === undefined ? "" : "AND status = ?";
    const args = filter.status === undefined ? [threadId] : [threadId, filter.status];
    return this.#sql
      .exec<Row>(`SELECT * FROM runs WHERE thread_id = ? ${status} ORDER BY rowid DESC LIMIT ? OFFSET ?`, ...args, filter.limit, filter.offset)
      .toArray()
      .map(toRun);
  }

  /** A thread's runs that are not over (pending or running), oldest first: the queue. */
  inflight(threadId: string): Run[] {
    return this.#sql.exec<Row>("SELECT * FROM runs WHERE thread_id = ? AND status IN ('pending', 'running') ORDER BY rowid", threadId).toArray().map(toRun);
  }

  /** Every run that is not over, oldest first. */
  allInflight(): Run[] {
    return this.#sql.exec<Row>("SELECT * FROM runs WHERE status IN ('pending', 'running') ORDER BY rowid").toArray().map(toRun);
  }

  /** The run starts (again): `running`, one attempt more. */
  start(runId: string): number {
    this.setStatus(runId, "running");
    return this.#sql.exec<{ attempt: number }>("UPDATE run_progress SET attempt = attempt + 1 WHERE run_id = ? RETURNING attempt", runId).one().attempt;
  }

  setStatus(runId: string, status: RunStatus): void {
    this.#sql.exec("UPDATE runs SET status = ?, updated_at = ? WHERE run_id = ?", status, timestamp(), runId);
  }

  /** Remembers a cancel asked for while the run ran, for a run resumed after a restart. */
  setCancel(runId: string, action: CancelAction): void {
    this.#sql.exec("UPDATE run_progress SET cancel_action = ? WHERE run_id = ?", action, runId);
  }

  setResult(runId: string, result: JsonValue): void {
    this.#sql.exec("UPDATE run_progress SET result = ? WHERE run_id = ?", JSON.stringify(result), runId);
  }

  delete(runId: string): void {
    this.#sql.exec("DELETE FROM runs WHERE run_id = ?", runId);
    this.#sql.exec("DELETE FROM run_progress WHERE run_id = ?", runId);
  }

  deleteThread(threadId: string): void {
    this.#sql.exec("DELETE FROM run_progress WHERE run_id IN (SELECT run_id FROM runs WHERE thread_id = ?)", threadId);
    this.#sql.exec("DELETE FROM runs WHERE thread_id = ?", threadId);
  }
}

export function toRun(row: Row): Run {
  return {
    run_id: row.run_id,
    thread_id: row.thread_id,
    assistant_id: row.assistant_id,
    created_at: row.created_at,
    updated_at: row.updated_at,
    status: row.status as RunStatus,
    metadata: parseJson<JsonObject>(row.metadata),
    kwargs: parseJson<JsonObject>(row.kwargs),
    multitask_strategy: row.multitask_strategy,
  };
}
