import { timestamp } from "../clock.ts";
import type { ThreadValues } from "../graphs/graph.ts";
import type { JsonObject } from "../../shared/pydantic/json.ts";
import { contains, parseJson } from "../storage.ts";

/** A task of a checkpoint: a node that runs next, and the error it failed with, if it did. */
export interface CheckpointTask {
  readonly id: string;
  readonly name: string;
  readonly error?: string;
  /** The interrupts the node paused with, pending until a run resumes it. */
  readonly interrupts?: readonly { readonly value: JsonObject; readonly id: string }[];
}

/** One saved state of a thread, as LangGraph's checkpointer keeps it. */
export interface Checkpoint {
  readonly checkpoint_id: string;
  readonly thread_id: string;
  readonly parent_checkpoint_id: string | null;
  readonly run_id: string | null;
  readonly step: number;
  readonly source: string;
  readonly values: ThreadValues;
  readonly next: readonly string[];
  readonly tasks: readonly CheckpointTask[];
  readonly metadata: JsonObject;
  readonly created_at: string;
}

/** What a new checkpoint records; the ledger adds its id, step, tasks and time. */
export interface CheckpointInput {
  readonly parentId: string | null;
  readonly runId: string | null;
  readonly source: string;
  readonly values: ThreadValues;
  readonly next: readonly string[];
  readonly writes: JsonObject | null;
  /** Laid into the checkpoint's metadata (the run's ids and metadata, as the real server does). */
  readonly metadata: JsonObject;
}

/** Which checkpoints a history asks for. */
export interface CheckpointQuery {
  readonly limit: number;
  /** Only those saved before this checkpoint. */
  readonly before?: string | undefined;
  /** Only those whose metadata contains this. */
  readonly metadata?: JsonObject | undefined;
  /** Only this one. */
  readonly checkpointId?: string | undefined;
}

type Row = {
  seq: number;
  checkpoint_id: string;
  thread_id: string;
  parent_checkpoint_id: string | null;
  run_id: string | null;
  step: number;
  source: string;
  state_values: string;
  next: string;
  tasks: string;
  metadata: string;
  created_at: string;
};

/**
 * The checkpoints of every thread: synchronous SQL inside the state object, used by the run engine
 * (a checkpoint after each step) and by the thread state endpoints (state, history, update, copy).
 * A step number continues from the parent's, so a thread's history reads -1, 0, 1, ... across runs.
 */
export class CheckpointLedger {
  readonly #sql: SqlStorage;

  constructor(sql: SqlStorage) {
    this.#sql = sql;
  }

  /** Saves a checkpoint after `parentId` (the thread's first when null). */
  append(threadId: string, input: CheckpointInput): Checkpoint {
    const parent = input.parentId === null ? undefined : this.get(threadId, input.parentId);
    const step = parent ? parent.step + 1 : -1;
    const id = crypto.randomUUID();
    const tasks: CheckpointTask[] = input.next.map((name) => ({ id: crypto.randomUUID(), name }));
    const metadata = { ...input.metadata, source: input.source, step, writes: input.writes, parents: {} };
    this.#sql.exec(
      `INSERT INTO checkpoints (checkpoint_id, thread_id, parent_checkpoint_id, run_id, step, source, state_values, next, tasks, metadata, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      id,
      threadId,
      parent ? parent.checkpoint_id : null,
      input.runId,
      step,
      input.source,
      JSON.stringify(input.values),
      JSON.stringify(input.next),
      JSON.stringify(tasks),
      JSON.stringify(metadata),
      timestamp(),
    );
    return this.get(threadId, id)!;
  }

  /** Records on the checkpoint's task for `node` the error it failed with (LangGraph's repr of it). */
  failTask(threadId: string, checkpointId: string, node: string, error: { readonly error: string; readonly message: string }): void {
    const checkpoint = this.get(threadId, checkpointId);
    if (!checkpoint) return;
    const described = `${error.error}(${JSON.stringify(error.message)})`;
    const known = checkpoint.tasks.some((t) => t.name === node);
    const tasks = known
      ? checkpoint.tasks.map((t) => (t.name === node ? { ...t, error: described } : t))
      : [...checkpoint.tasks, { id: crypto.randomUUID(), name: node, error: described }];
    this.#sql.exec("UPDATE checkpoints SET tasks = ? WHERE thread_id = ? AND checkpoint_id = ?", JSON.stringify(tasks), threadId, checkpointId);
  }

  /**
   * Records on the checkpoint's task for `node` the interrupts it paused with: they are pending
   * while this checkpoint is the thread's latest (LangGraph keeps them as the task's pending writes).
   */
  interruptTask(threadId: string, checkpointId: string, node: string, interrupts: readonly { readonly value: JsonObject; readonly id: string }[]): void {
    const checkpoint = this.get(threadId, checkpointId);
    if (!checkpoint) return;
    const tasks = checkpoint.tasks.map((t) => (t.name === node ? { ...t, interrupts } : t));
    this.#sql.exec("UPDATE checkpoints SET tasks = ? WHERE thread_id = ? AND checkpoint_id = ?", JSON.stringify(tasks), threadId, checkpointId);
  }

  get(threadId: string, checkpointId: string): Checkpoint | undefined {
    const row = this.#sql.exec<Row>("SELECT * FROM checkpoints WHERE thread_id = ? AND checkpoint_id = ?", threadId, checkpointId).toArray()[0];
    return row ? toCheckpoint(row) : undefined;
  }

  /** The thread's newest checkpoint: its current state. */
  latest(threadId: string): Checkpoint | undefined {
    const row = this.#sql.exec<Row>("SELECT * FROM checkpoints WHERE thread_id = ? ORDER BY seq DESC LIMIT 1", threadId).toArray()[0];
    return row ? toCheckpoint(row) : undefined;
  }

  /** The newest checkpoint a run saved: where it goes on from after a restart. */
  latestOfRun(runId: string): Checkpoint | undefined {
    const row = this.#sql.exec<Row>("SELECT * FROM checkpoints WHERE run_id = ? ORDER BY seq DESC LIMIT 1", runId).toArray()[0];
    return row ? toCheckpoint(row) : undefined;
  }

  /** The first checkpoint a run saved: its parent is where the run started from. */
  firstOfRun(runId: string): Checkpoint | undefined {
    const row = this.#sql.exec<Row>("SELECT * FROM checkpoints WHERE run_id = ? ORDER BY seq LIMIT 1", runId).toArray()[0];
    return row ? toCheckpoint(row) : undefined;
  }

  /** A thread's checkpoints, newest first, as its history lists them. */
  list(threadId: string, query: CheckpointQuery): Checkpoint[] {
    const beforeSeq = query.before === undefined ? undefined : this.#seqOf(threadId, query.before);
    if (query.before !== undefined && beforeSeq === undefined) return [];
    return this.#sql
      .exec<Row>("SELECT * FROM checkpoints WHERE thread_id = ? AND seq < ? ORDER BY seq DESC", threadId, beforeSeq ?? Number.MAX_SAFE_INTEGER)
      .toArray()
      .map(toCheckpoint)
      .filter((c) => query.checkpointId === undefined || c.checkpoint_id === query.checkpointId)
      .filter((c) => query.metadata === undefined || contains(c.metadata, query.metadata))
      .slice(0, query.limit);
  }

  /** Forgets what a run saved (a rollback, or a deleted run). */
  deleteRun(runId: string): void {
    this.#sql.exec("DELETE FROM checkpoints WHERE run_id = ?", runId);
  }

  deleteThread(threadId: string): void {
    this.#sql.exec("DELETE FROM checkpoints WHERE thread_id = ?", threadId);
  }

  /** Every checkpoint of the thread, oldest first (GET /threads/{id}/storage). */
  all(threadId: string): Checkpoint[] {
    return this.#sql.exec<Row>("SELECT * FROM checkpoints WHERE thread_id = ? ORDER BY seq", threadId).toArray().map(toCheckpoint);
  }

  /**
   * Prunes the thread to its latest checkpoint (the `keep_latest` strategy of POST /threads/prune
   * and of a thread's TTL): the thread keeps its state, its history is that one checkpoint.
   */
  keepLatest(threadId: string): void {
    const latest = this.latest(threadId);
    if (!latest) return;
    this.#sql.exec("DELETE FROM checkpoints WHERE thread_id = ? AND checkpoint_id != ?", threadId, latest.checkpoint_id);
  }

  /**
   * Gives `to` the same checkpoints as `from` (same ids, parents and order), as a thread copy does;
   * their metadata names the new thread.
   */
  copyThread(from: string, to: string): void {
    for (const row of this.#sql.exec<Row>("SELECT * FROM checkpoints WHERE thread_id = ? ORDER BY seq", from).toArray()) {
      const metadata = parseJson<JsonObject>(row.metadata);
      if ("thread_id" in metadata) metadata.thread_id = to;
      this.#sql.exec(
        `INSERT INTO checkpoints (checkpoint_id, thread_id, parent_checkpoint_id, run_id, step, source, state_values, next, tasks, metadata, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        row.checkpoint_id,
        to,
        row.parent_checkpoint_id,
        row.run_id,
        row.step,
        row.source,
        row.state_values,
        row.next,
        row.tasks,
        JSON.stringify(metadata),
        row.created_at,
      );
    }
  }

  #seqOf(threadId: string, checkpointId: string): number | undefined {
    return this.#sql.exec<{ seq: number }>("SELECT seq FROM checkpoints WHERE thread_id = ? AND checkpoint_id = ?", threadId, checkpointId).toArray()[0]?.seq;
  }
}

function toCheckpoint(row: Row): Checkpoint {
  return {
    checkpoint_id: row.checkpoint_id,
    thread_id: row.thread_id,
    parent_checkpoint_id: row.parent_checkpoint_id,
    run_id: row.run_id,
    step: row.step,
    source: row.source,
    values: parseJson<ThreadValues>(row.state_values),
    next: parseJson<string[]>(row.next),
    tasks: parseJson<CheckpointTask[]>(row.tasks),
    metadata: parseJson<JsonObject>(row.metadata),
    created_at: row.created_at,
  };
}
