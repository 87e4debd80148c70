import type { Checkpoint } from "./checkpoints.ts";

/** ThreadStorage (GET /threads/{thread_id}/storage): the bytes a thread's checkpoints occupy, as stored. */
export interface ThreadStorage {
  readonly thread_id: string;
  readonly total_bytes: number;
  readonly checkpoints: { readonly count: number; readonly bytes: number };
  readonly channel_values: {
    readonly count: number;
    readonly bytes: number;
    readonly by_channel: Record<string, { readonly versions: number; readonly bytes: number }>;
  };
  readonly pending_writes: { readonly count: number; readonly bytes: number };
}

const utf8 = new TextEncoder();
const bytesOf = (value: unknown) => utf8.encode(JSON.stringify(value)).byteLength;

/**
 * A thread's storage, laid out as LangGraph's checkpointer keeps it (the document's three
 * sections): each checkpoint row (its ids, next nodes, tasks and metadata, without the values);
 * each channel's values, one row per distinct version (a channel a step did not change keeps
 * its version, as a checkpoint blob is written only when the channel changes); and the writes of
 * tasks not yet folded into a checkpoint (a task's error or interrupts, LangGraph's `__error__`
 * and `__interrupt__` writes). Sizes are the UTF-8 bytes of each part serialized as JSON, as the
 * emulator stores them.
 */
export function threadStorage(threadId: string, checkpoints: readonly Checkpoint[]): ThreadStorage {
  let checkpointBytes = 0;
  let pendingCount = 0;
  let pendingBytes = 0;
  const versions = new Map<string, Set<string>>();
  for (const checkpoint of checkpoints) {
    const { values, tasks, ...row } = checkpoint;
    checkpointBytes += bytesOf({ ...row, tasks: tasks.map(({ id, name }) => ({ id, name })) });
    for (const task of tasks) {
      if (task.error !== undefined) {
        pendingCount++;
        pendingBytes += bytesOf(task.error);
      }
      for (const interrupt of task.interrupts ?? []) {
        pendingCount++;
        pendingBytes += bytesOf(interrupt);
      }
    }
    for (const [channel, value] of Object.entries(values as Record<string, unknown>)) {
      const seen = versions.get(channel) ?? new Set<string>();
      seen.add(JSON.stringify(value));
      versions.set(channel, seen);
    }
  }
  const byChannel: Record<string, { versions: number; bytes: number }> = {};
  let valueCount = 0;
  let valueBytes = 0;
  for (const [channel, seen] of versions) {
    const bytes = [...seen].reduce((sum, text) => sum + utf8.encode(text).byteLength, 0);
    byChannel[channel] = { versions: seen.size, bytes };
    valueCount += seen.size;
    valueBytes += bytes;
  }
  return {
    thread_id: threadId,
    total_bytes: checkpointBytes + valueBytes + pendingBytes,
    checkpoints: { count: checkpoints.length, bytes: checkpointBytes },
    channel_values: { count: valueCount, bytes: valueBytes, by_channel: byChannel },
    pending_writes: { count: pendingCount, bytes: pendingBytes },
  };
}
