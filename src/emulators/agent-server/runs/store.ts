import { RpcTarget } from "cloudflare:workers";
import type { AssistantStore } from "../assistants/store.ts";
import { timestamp } from "../clock.ts";
import { checkContext } from "../graphs/context.ts";
import type { ThreadValues } from "../graphs/graph.ts";
import { findGraph } from "../graphs/registry.ts";
import { invalid, ok, refuse, type Result } from "../../shared/result.ts";
import { parseJson } from "../storage.ts";
import { notFound as threadNotFound, type ThreadStore } from "../threads/store.ts";
import type { Run, RunRequest, RunStart, RunStatus } from "./schema.ts";

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
  lease_expires_at: number;
};

/**
 * Runs: starting one (checks, then the thread turns busy) and finishing it (the thread takes the
 * run's values and turns idle, or error). The graph itself runs in the Worker that streams it.
 */
export class RunStore extends RpcTarget {
  readonly #storage: DurableObjectStorage;
  readonly #threads: ThreadStore;
  readonly #assistants: AssistantStore;

  constructor(storage: DurableObjectStorage, threads: ThreadStore, assistants: AssistantStore) {
    super();
    this.#storage = storage;
    this.#threads = threads;
    this.#assistants = assistants;
  }

  /**
   * Starts a run, in one transaction: 404 for an unknown thread or assistant, 422 for a context
   * the graph refuses, 409 while another run holds the thread. The assistant's active version is
   * read here, so the run uses the configuration that was active when it was requested.
   */
  begin(request: RunRequest): Result<RunStart> {
    return this.#storage.transactionSync(() => {
      const thread = this.#threads.find(request.threadId);
      if (!thread && request.ifNotExists !== "create") return threadNotFound(request.threadId);
      const assistant = request.assistantId ? this.#assistants.find(request.assistantId) : undefined;
      if (!assistant) {
        return refuse(404, `Assistant '${request.assistantRef}' not found: send the UUID of an assistant, or a graph id for its default assistant.`);
      }
      const graph = findGraph(assistant.graph_id);
      if (!graph) return refuse(404, `Graph '${assistant.graph_id}' of assistant ${assistant.assistant_id} is not deployed.`);
      const context = { ...assistant.context, ...request.context };
      const errors = checkContext(graph, context);
      if (errors.length) return invalid(errors);

      const now = Date.now();
      const holder = this.#sql
        .exec<Row>("SELECT * FROM runs WHERE thread_id = ? AND status = 'running'", request.threadId)
        .toArray()[0];
      if (holder && holder.lease_expires_at > now) {
        return refuse(
          409,
          `Thread ${request.threadId} is busy with run ${holder.run_id}. Wait for it to finish: the emulator runs one run per thread at a time (multitask_strategy 'reject').`,
        );
      }
      // A run whose Worker went away never finishes; once its lease is over it times out.
      if (holder) this.#setStatus(holder.run_id, "timeout");

      const at = timestamp();
      const stamp = { graph_id: graph.graphId, assistant_id: assistant.assistant_id };
      const current = thread ?? this.#threads.insert(request.threadId, {});
      this.#sql.exec(
        "UPDATE threads SET status = 'busy', metadata = ?, updated_at = ? WHERE thread_id = ?",
        JSON.stringify({ ...current.metadata, ...stamp }),
        at,
        request.threadId,
      );
      this.#sql.exec(
        `INSERT INTO runs (run_id, thread_id, assistant_id, created_at, updated_at, status, metadata, kwargs, multitask_strategy, lease_expires_at)
         VALUES (?, ?, ?, ?, ?, 'running', ?, ?, ?, ?)`,
        request.runId,
        request.threadId,
        assistant.assistant_id,
        at,
        at,
        JSON.stringify(request.metadata),
        JSON.stringify({ ...request.kwargs, context }),
        request.multitaskStrategy,
        now + request.leaseMs,
      );
      return ok({ run: this.find(request.runId)!, graphId: graph.graphId, context, values: current.values });
    });
  }

  /**
   * Ends a run: the thread keeps the values the run produced and turns idle (or error). A run that
   * was deleted with its thread, or timed out, changes nothing.
   */
  finish(runId: string, status: "success" | "error", values: ThreadValues): boolean {
    return this.#storage.transactionSync(() => {
      const run = this.find(runId);
      if (!run || run.status !== "running") return false;
      this.#setStatus(runId, status);
      this.#sql.exec(
        "UPDATE threads SET state_values = ?, status = ?, updated_at = ? WHERE thread_id = ?",
        JSON.stringify(values),
        status === "success" ? "idle" : "error",
        timestamp(),
        run.thread_id,
      );
      return true;
    });
  }

  /** GET /threads/{thread_id}/runs/{run_id}. */
  get(threadId: string, runId: string): Result<Run> {
    if (!this.#threads.find(threadId)) return threadNotFound(threadId);
    const run = this.find(runId);
    return run && run.thread_id === threadId ? ok(run) : refuse(404, `Run ${runId} not found in thread ${threadId}.`);
  }

  find(runId: string): Run | undefined {
    const row = this.#sql.exec<Row>("SELECT * FROM runs WHERE run_id = ?", runId).toArray()[0];
    return row ? toRun(row) : undefined;
  }

  #setStatus(runId: string, status: RunStatus): void {
    this.#sql.exec("UPDATE runs SET status = ?, updated_at = ? WHERE run_id = ?", status, timestamp(), runId);
  }

  get #sql(): SqlStorage {
    return this.#storage.sql;
  }
}

function toRun(row: Row): Run {
  return {
    run_id: row.run_id,
    thread_id: row.thread_id,
    assistant_id: row.assistant_id,
    created_at: row.created_at,
    updated_at: row.updated_at,
    status: row.status as RunStatus,
    metadata: parseJson(row.metadata),
    kwargs: parseJson(row.kwargs),
    multitask_strategy: row.multitask_strategy,
  };
}
