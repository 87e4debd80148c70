import { RpcTarget } from "cloudflare:workers";
import { findGraph } from "../graphs/registry.ts";
import type { JsonObject } from "../../shared/pydantic/json.ts";
import { invalid, ok, refuse, type Result } from "../../shared/result.ts";
import type { LoggedEvent, RunEventLog } from "../runs/event-log.ts";
import { loggedEventStream } from "../runs/event-stream.ts";
import type { RunTable } from "../runs/run-table.ts";
import type { Checkpoint, CheckpointLedger, CheckpointQuery } from "./checkpoints.ts";
import type { Thread, ThreadCreate } from "./schema.ts";
import { applyStateUpdate } from "./state-update.ts";
import { threadStorage, type ThreadStorage } from "./storage-usage.ts";
import { alreadyThere, notFound, type ThreadStore } from "./store.ts";
import { planSupersteps } from "./supersteps.ts";
import { checkpointConfig, toThreadState, type CheckpointConfig, type ThreadState } from "./thread-state.ts";

/** What the thread stream shows (its `stream_modes`). */
export type ThreadStreamMode = "run_modes" | "lifecycle" | "state_update";

/**
 * A thread's state as its runs left it, over RPC: the latest checkpoint, one by id, the history,
 * an update (a new checkpoint, as if a node had written it), a copy of the thread, and the thread's
 * event stream (every run on it, as they happen).
 */
export class ThreadStateStore extends RpcTarget {
  readonly #storage: DurableObjectStorage;
  readonly #threads: ThreadStore;
  readonly #checkpoints: CheckpointLedger;
  readonly #runs: RunTable;
  readonly #events: RunEventLog;
  readonly #waitUntil: (work: Promise<unknown>) => void;

  constructor(parts: {
    storage: DurableObjectStorage;
    threads: ThreadStore;
    checkpoints: CheckpointLedger;
    runs: RunTable;
    events: RunEventLog;
    waitUntil: (work: Promise<unknown>) => void;
  }) {
    super();
    this.#storage = parts.storage;
    this.#threads = parts.threads;
    this.#checkpoints = parts.checkpoints;
    this.#runs = parts.runs;
    this.#events = parts.events;
    this.#waitUntil = parts.waitUntil;
  }

  /** GET /threads/{id}/state, /state/{checkpoint_id}, POST /state/checkpoint: the latest state, or one checkpoint's. */
  state(threadId: string, checkpointId?: string): Result<ThreadState> {
    const thread = this.#threads.find(threadId);
    if (!thread) return notFound(threadId);
    if (checkpointId === undefined) return ok(toThreadState(threadId, this.#checkpoints.latest(threadId), thread));
    const checkpoint = this.#checkpoints.get(threadId, checkpointId);
    return checkpoint ? ok(toThreadState(threadId, checkpoint, thread)) : checkpointNotFound(threadId, checkpointId);
  }

  /** GET/POST /threads/{id}/history: checkpoints, newest first. */
  history(threadId: string, query: CheckpointQuery): Result<ThreadState[]> {
    const thread = this.#threads.find(threadId);
    if (!thread) return notFound(threadId);
    return ok(this.#checkpoints.list(threadId, query).map((checkpoint) => toThreadState(threadId, checkpoint, thread)));
  }

  /**
   * POST /threads/{id}/state: a new checkpoint after the latest (or after `checkpointId`, a fork)
   * with the values applied as `as_node` would have written them; the thread takes its values.
   * 409 while a run is in flight on the thread, 400 for a thread that has no graph yet.
   */
  update(
    threadId: string,
    request: { readonly values: unknown; readonly asNode?: string | undefined; readonly checkpointId?: string | undefined },
  ): Result<{ checkpoint: CheckpointConfig }> {
    return this.#storage.transactionSync((): Result<{ checkpoint: CheckpointConfig }> => {
      const thread = this.#threads.find(threadId);
      if (!thread) return notFound(threadId);
      const inflight = this.#runs.inflight(threadId);
      if (inflight.length > 0) {
        return refuse(409, `Thread ${threadId} has a run in flight (${inflight[0]!.run_id}): update its state once its runs are over, or cancel them.`);
      }
      const graphId = typeof thread.metadata.graph_id === "string" ? thread.metadata.graph_id : undefined;
      const graph = graphId === undefined ? undefined : findGraph(graphId);
      if (!graph) {
        return refuse(
          400,
          `Thread ${threadId} has no graph yet: run it once, or create it with metadata {"graph_id": "<graph id>"}, before updating its state.`,
        );
      }
      let base: Checkpoint | undefined;
      if (request.checkpointId !== undefined) {
        base = this.#checkpoints.get(threadId, request.checkpointId);
        if (!base) return checkpointNotFound(threadId, request.checkpointId);
      } else base = this.#checkpoints.latest(threadId);

      const writer = Object.keys(base?.metadata.writes ?? {})[0];
      const update = applyStateUpdate(graph, base?.values ?? thread.values, { values: request.values, asNode: request.asNode, lastWriter: writer }, () =>
        crypto.randomUUID(),
      );
      if (!update.ok) return invalid(update.errors);
      const checkpoint = this.#checkpoints.append(threadId, {
        parentId: base?.checkpoint_id ?? null,
        runId: null,
        source: "update",
        values: update.values,
        next: update.next,
        writes: { [update.asNode]: (request.values ?? null) as JsonObject },
        metadata: { thread_id: threadId, graph_id: graph.graphId },
      });
      this.#threads.settle(threadId, thread.status, update.values);
      const config = checkpointConfig(threadId, checkpoint.checkpoint_id);
      this.#events.append(threadId, null, { event: "state_update", data: { checkpoint: config, values: update.values, as_node: update.asNode } }, "thread");
      return ok({ checkpoint: config });
    });
  }

  /**
   * POST /threads with `supersteps`: the new thread with a checkpoint for each superstep, its
   * values the last one's. The graph is the one `metadata.graph_id` names (400 without one, as the
   * real server answers); a refused update is a 422 and no thread is made. A thread id that is
   * taken is answered as without supersteps, and its state is left alone.
   */
  createWithSupersteps(threadId: string, input: ThreadCreate & { readonly supersteps: NonNullable<ThreadCreate["supersteps"]> }): Result<Thread> {
    return this.#storage.transactionSync((): Result<Thread> => {
      const existing = this.#threads.find(threadId);
      if (existing) return alreadyThere(existing, input);
      const metadata = input.metadata ?? {};
      const graph = typeof metadata.graph_id === "string" ? findGraph(metadata.graph_id) : undefined;
      if (!graph) return refuse(400, `Thread ${threadId} has no graph to apply supersteps with: create it with metadata {"graph_id": "<graph id>"}.`);
      const plan = planSupersteps(graph, input.supersteps, () => crypto.randomUUID());
      if (!plan.ok) return invalid(plan.errors);
      this.#threads.insert(threadId, metadata);
      this.#threads.setTtl(threadId, input.ttl);
      let parentId: string | null = null;
      for (const planned of plan.checkpoints) {
        parentId = this.#checkpoints.append(threadId, {
          ...planned,
          parentId,
          runId: null,
          metadata: { thread_id: threadId, graph_id: graph.graphId },
        }).checkpoint_id;
      }
      this.#threads.settle(threadId, "idle", plan.checkpoints.at(-1)?.values ?? {});
      return ok(this.#threads.find(threadId)!);
    });
  }

  /**
   * POST /threads/{id}/copy: a new idle thread with the same metadata, values and checkpoints
   * (not the runs). 409 when there is no such thread, as the real server answers.
   */
  copy(threadId: string): Result<Thread> {
    return this.#storage.transactionSync((): Result<Thread> => {
      const source = this.#threads.find(threadId);
      if (!source) return refuse(409, `Thread ${threadId} not found: there is nothing to copy.`);
      const copyId = crypto.randomUUID();
      this.#threads.insert(copyId, source.metadata);
      this.#checkpoints.copyThread(threadId, copyId);
      this.#threads.settle(copyId, "idle", source.values);
      return ok(this.#threads.find(copyId)!);
    });
  }

  /** GET /threads/{id}/storage: the bytes the thread's checkpoints occupy (storage-usage.ts). */
  storage(threadId: string): Result<ThreadStorage> {
    if (!this.#threads.find(threadId)) return notFound(threadId);
    return ok(threadStorage(threadId, this.#checkpoints.all(threadId)));
  }

  /**
   * POST /threads/prune: `delete` removes each thread as DELETE /threads/{id} does; `keep_latest`
   * keeps each thread and its latest state, dropping its older checkpoints. Ids of threads that do
   * not exist are skipped; the count is of the threads pruned.
   */
  prune(threadIds: readonly string[], strategy: "delete" | "keep_latest"): { pruned_count: number } {
    let pruned = 0;
    for (const threadId of new Set(threadIds)) {
      if (!this.#threads.find(threadId)) continue;
      if (strategy === "delete") this.#threads.delete(threadId);
      else this.#checkpoints.keepLatest(threadId);
      pruned++;
    }
    return { pruned_count: pruned };
  }

  /**
   * GET /threads/{id}/stream: the events of every run on the thread (and its state updates) as
   * they happen, open until the client leaves. `after` replays what came after that event first
   * (Last-Event-ID; 0 for everything kept); without it the stream starts now, as the real one does.
   */
  openStream(threadId: string, after: number | undefined, modes: readonly ThreadStreamMode[]): Result<Response> {
    if (!this.#threads.find(threadId)) return notFound(threadId);
    const replay = after === undefined ? [] : this.#events.ofThread(threadId, after);
    const live = this.#events.listenToThread(threadId);
    return ok(loggedEventStream({ replay, live, withIds: true, accept: threadModeFilter(modes), waitUntil: this.#waitUntil }));
  }
}

/**
 * `run_modes` shows every run event; `lifecycle` only runs starting (`metadata` with `run_id` and
 * `attempt`) and ending (`metadata` `run_done`); `state_update` only state updates.
 */
function threadModeFilter(modes: readonly ThreadStreamMode[]): (event: LoggedEvent) => boolean {
  const shown = new Set(modes.length > 0 ? modes : ["run_modes"]);
  return (event) => {
    if (event.event === "state_update") return shown.has("state_update");
    if (shown.has("run_modes")) return true;
    return shown.has("lifecycle") && event.event === "metadata";
  };
}

const checkpointNotFound = (threadId: string, checkpointId: string) => refuse(404, `Checkpoint ${checkpointId} not found in thread ${threadId}.`);
