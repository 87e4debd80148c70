import type { ThreadValues } from "../graphs/graph.ts";
import type { JsonObject } from "../../shared/pydantic/json.ts";
import type { Checkpoint } from "./checkpoints.ts";

/** A checkpoint as the API names it (CheckpointConfig). */
export interface CheckpointConfig {
  readonly thread_id: string;
  readonly checkpoint_ns: string;
  readonly checkpoint_id?: string;
}

/**
 * A task of a state: a node that runs next (and the error it failed with). The graphs have no
 * subgraphs, so a task has no checkpoint or state of its own, and a task still to run no result:
 * null, as the real server writes them.
 */
export interface ThreadTask {
  readonly id: string;
  readonly name: string;
  readonly path: readonly string[];
  readonly error: string | null;
  readonly interrupts: readonly PendingInterrupt[];
  readonly checkpoint: null;
  readonly state: null;
  readonly result: null;
}

/** A pending interrupt (`{value, id}`), as the real server shows it in a state and a thread. */
export interface PendingInterrupt {
  readonly value: JsonObject;
  readonly id: string;
}

/** The ThreadState resource (GET /threads/{thread_id}/state, each item of a history). */
export interface ThreadState {
  readonly values: ThreadValues;
  readonly next: readonly string[];
  readonly tasks: readonly ThreadTask[];
  readonly checkpoint: CheckpointConfig;
  readonly metadata: JsonObject;
  readonly created_at: string;
  readonly parent_checkpoint: CheckpointConfig | null;
  /** Every task's pending interrupts, in task order. */
  readonly interrupts: readonly PendingInterrupt[];
}

/** The API's name for a thread's checkpoint. */
export const checkpointConfig = (threadId: string, checkpointId: string): CheckpointConfig => ({
  thread_id: threadId,
  checkpoint_ns: "",
  checkpoint_id: checkpointId,
});

/**
 * A checkpoint as the real server shows it (its `state_snapshot_to_thread_state`), with null where
 * it writes null: no parent yet, a task without error (the contract allows those nulls,
 * test/workers/contract/agent-server-amendments.ts). A thread with no checkpoint yet shows its
 * values with no next nodes and a checkpoint without id, where the real server has null for the
 * checkpoint and `created_at`: the document requires both, so they keep its shape.
 */
export function toThreadState(
  threadId: string,
  checkpoint: Checkpoint | undefined,
  empty: { readonly values: ThreadValues; readonly created_at: string },
): ThreadState {
  if (!checkpoint) {
    return {
      values: empty.values,
      next: [],
      tasks: [],
      checkpoint: { thread_id: threadId, checkpoint_ns: "" },
      metadata: {},
      created_at: empty.created_at,
      parent_checkpoint: null,
      interrupts: [],
    };
  }
  return {
    values: checkpoint.values,
    next: checkpoint.next,
    tasks: checkpoint.tasks.map((task) => ({
      id: task.id,
      name: task.name,
      path: ["__pregel_pull", task.name],
      error: task.error ?? null,
      interrupts: task.interrupts ?? [],
      checkpoint: null,
      state: null,
      result: null,
    })),
    checkpoint: checkpointConfig(threadId, checkpoint.checkpoint_id),
    metadata: checkpoint.metadata,
    created_at: checkpoint.created_at,
    parent_checkpoint: checkpoint.parent_checkpoint_id === null ? null : checkpointConfig(threadId, checkpoint.parent_checkpoint_id),
    interrupts: checkpoint.tasks.flatMap((task) => task.interrupts ?? []),
  };
}

/**
 * A thread's `interrupts` as the real server keeps them: the pending interrupts of its latest
 * checkpoint's tasks, by task id (tasks without any are left out).
 */
export function pendingInterrupts(checkpoint: Checkpoint | undefined): Record<string, PendingInterrupt[]> {
  const pending: Record<string, PendingInterrupt[]> = {};
  for (const task of checkpoint?.tasks ?? []) if (task.interrupts?.length) pending[task.id] = [...task.interrupts];
  return pending;
}
