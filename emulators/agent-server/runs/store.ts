import { RpcTarget } from "cloudflare:workers";
import type { AssistantStore } from "../assistants/store.ts";
import { checkContext } from "../graphs/context.ts";
import { findGraph } from "../graphs/registry.ts";
import type { JsonObject, JsonValue } from "../../shared/pydantic/json.ts";
import { invalid, ok, refuse, type Result } from "../../shared/result.ts";
import { notFound as threadNotFound, type ThreadStore } from "../threads/store.ts";
import { checkRunGraphOptions } from "./command-check.ts";
import type { RunEngine } from "./engine.ts";
import type { LoggedEvent, RunEventLog } from "./event-log.ts";
import { loggedEventStream } from "./event-stream.ts";
import { runConfiguration } from "./run-config.ts";
import type { RunTable } from "./run-table.ts";
import type { CancelAction, Run, RunRequest, RunStatus } from "./schema.ts";
import type { EmulatorClock } from "../system/clock.ts";

/** How a client reads a run's stream. */
export interface RunStreamRequest {
  /** Events after this one (`Last-Event-ID`); 0 for all of them. */
  readonly after: number;
  /** Stream modes to show; all of the run's when empty. */
  readonly modes: readonly string[];
  /** Write `id:` lines (join streams always; a run's own stream when it is stream_resumable). */
  readonly withIds: boolean;
}

/** Which runs POST /runs/cancel cancels: every run of a status, or listed runs of a thread. */
export type CancelSelection = { readonly status: "pending" | "running" | "all" } | { readonly threadId: string; readonly runIds: readonly string[] };

/** What a route wants with a new run, set up before the run can start (and, stateless, be gone). */
export interface RunAttachments {
  /** The run's event stream, from its first event. */
  readonly stream?: RunStreamRequest;
  /** Its outcome once it is over (wait). */
  readonly outcome?: boolean;
}

/** A created run, with what was attached to it. */
export interface CreatedRun {
  readonly run: Run;
  readonly stream?: Response;
  readonly outcome?: RunOutcome;
}

/** A run's outcome, to be awaited over RPC (what POST .../wait answers). */
export class RunOutcome extends RpcTarget {
  readonly #value: Promise<JsonValue>;

  constructor(value: Promise<JsonValue>) {
    super();
    this.#value = value;
  }

  value(): Promise<JsonValue> {
    return this.#value;
  }
}

/** Events every stream shows whatever modes it asked for. */
const ALWAYS_SHOWN = new Set(["metadata", "error"]);

/**
 * Runs, over RPC from the Worker: creating one (the refusals, then the multitask strategy), reading
 * and deleting them, cancelling, waiting for one to end, and opening its event stream. The runs
 * themselves execute in the run engine, inside this object (runs/engine.ts).
 */
export class RunStore extends RpcTarget {
  readonly #storage: DurableObjectStorage;
  readonly #table: RunTable;
  readonly #threads: ThreadStore;
  readonly #assistants: AssistantStore;
  readonly #events: RunEventLog;
  readonly #engine: RunEngine;
  readonly #clock: Pick<EmulatorClock, "now">;
  readonly #waitUntil: (work: Promise<unknown>) => void;

  constructor(parts: {
    storage: DurableObjectStorage;
    waitUntil: (work: Promise<unknown>) => void;
    table: RunTable;
    threads: ThreadStore;
    assistants: AssistantStore;
    events: RunEventLog;
    engine: RunEngine;
    /** The object's clock, from which a run's `after_seconds` is counted. */
    clock: Pick<EmulatorClock, "now">;
  }) {
    super();
    this.#storage = parts.storage;
    this.#table = parts.table;
    this.#clock = parts.clock;
    this.#threads = parts.threads;
    this.#assistants = parts.assistants;
    this.#events = parts.events;
    this.#engine = parts.engine;
    this.#waitUntil = parts.waitUntil;
  }

  /**
   * Creates a run, `pending`, in one transaction: 404 for an unknown thread or assistant, 422 for
   * a context the graph refuses, 409 while the thread has a run in flight and the strategy is
   * `reject`. With `interrupt` or `rollback` the runs in flight are cancelled with that action; with
   * `enqueue` the new run waits its turn. The assistant's active version is read here, so the run
   * uses the configuration that was active when it was requested.
   */
  create(request: RunRequest, attach: RunAttachments = {}): Result<CreatedRun> {
    const created = this.#storage.transactionSync(() => this.#create(request));
    if (!created.ok) return created;
    const run = created.value;
    // Before the engine may start it: a stateless run can be over, its thread deleted, before the
    // Worker's next call arrives.
    const stream = attach.stream ? this.#stream(run, attach.stream) : undefined;
    const outcome = attach.outcome ? new RunOutcome(this.#outcome(run.thread_id, run.run_id)) : undefined;
    this.#engine.kick();
    return ok({ run, ...(stream ? { stream } : {}), ...(outcome ? { outcome } : {}) });
  }

  /**
   * POST /runs/batch: all the runs, or (the first refusal) none of them: one transaction, rolled
   * back when a run is refused.
   */
  createMany(requests: readonly RunRequest[]): Result<Run[]> {
    let refused: Result<never> | undefined;
    const runs: Run[] = [];
    try {
      this.#storage.transactionSync(() => {
        for (const request of requests) {
          const created = this.#create(request);
          if (!created.ok) {
            refused = created;
            throw new Error("a run of the batch was refused");
          }
          runs.push(created.value);
        }
      });
    } catch (error) {
      if (refused) return refused;
      throw error;
    }
    this.#engine.kick();
    return ok(runs);
  }

  #create(request: RunRequest): Result<Run> {
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
    const command = checkRunGraphOptions(graph, thread, request);
    if (!command.ok) return command;

    const inflight = this.#table.inflight(request.threadId);
    if (inflight.length > 0 && request.multitaskStrategy === "reject") {
      return refuse(
        409,
        `Thread ${request.threadId} is busy with run ${inflight[0]!.run_id}: it is already running a task. Wait for it to finish or choose a different multitask strategy (interrupt, rollback or enqueue).`,
      );
    }
    // The thread is stamped with the graph and assistant it runs; a thread the run creates starts
    // with the run's metadata too, as the real server makes it.
    const stamp = { graph_id: graph.graphId, assistant_id: assistant.assistant_id };
    const threadMetadata = thread ? { ...thread.metadata, ...stamp } : { ...stamp, ...request.metadata };
    if (thread) this.#threads.markBusy(request.threadId, stamp);
    else {
      this.#threads.insert(request.threadId, threadMetadata);
      this.#threads.markBusy(request.threadId, {});
    }
    const { metadata, config } = runConfiguration({
      runId: request.runId,
      threadId: request.threadId,
      graphId: graph.graphId,
      assistant,
      thread: { config: thread?.config ?? {}, metadata: threadMetadata },
      config: request.config,
      metadata: request.metadata,
      headers: request.headers,
    });
    const run = this.#table.insert({
      run: {
        run_id: request.runId,
        thread_id: request.threadId,
        assistant_id: assistant.assistant_id,
        metadata,
        kwargs: {
          input: (request.input ?? null) as JsonValue,
          config,
          stream_mode: [...request.streamModes],
          context,
          resumable: request.resumable,
          ...(command.value ? { command: command.value as JsonObject } : {}),
          ...(request.interruptBefore ? { interrupt_before: request.interruptBefore as JsonValue } : {}),
          ...(request.interruptAfter ? { interrupt_after: request.interruptAfter as JsonValue } : {}),
          ...(request.temporary ? { temporary: true } : {}),
        },
        multitask_strategy: request.multitaskStrategy,
      },
      graphId: graph.graphId,
      stepDelayMs: request.stepDelayMs,
      onDisconnect: request.onDisconnect,
      temporary: request.temporary,
      startAt: request.afterSeconds > 0 ? this.#clock.now() + request.afterSeconds * 1000 : 0,
    });
    if (request.multitaskStrategy === "interrupt" || request.multitaskStrategy === "rollback") {
      for (const other of inflight) this.#engine.cancel(other, request.multitaskStrategy);
    }
    return ok(run);
  }

  /** GET /threads/{thread_id}/runs/{run_id}. */
  get(threadId: string, runId: string): Result<Run> {
    if (!this.#threads.find(threadId)) return threadNotFound(threadId);
    const run = this.#table.find(runId);
    return run && run.thread_id === threadId ? ok(run) : runNotFound(threadId, runId);
  }

  /** A run by its id alone, whichever thread it is on (A2A's `tasks/get` names only the task). */
  find(runId: string): Run | undefined {
    return this.#table.find(runId);
  }

  /** GET /threads/{thread_id}/runs: newest first. */
  list(threadId: string, filter: { readonly status?: RunStatus | undefined; readonly limit: number; readonly offset: number }): Result<Run[]> {
    if (!this.#threads.find(threadId)) return threadNotFound(threadId);
    return ok(this.#table.ofThread(threadId, filter));
  }

  /**
   * DELETE /threads/{thread_id}/runs/{run_id}: a run that is over, with its checkpoints and
   * events (the thread's values go back to its latest remaining checkpoint). A run in flight is
   * refused: cancel it, with `action=rollback` to delete it too.
   */
  delete(threadId: string, runId: string): Result<null> {
    return this.#storage.transactionSync(() => {
      const found = this.get(threadId, runId);
      if (!found.ok) return found;
      if (found.value.status === "pending" || found.value.status === "running") {
        return refuse(
          409,
          `Run ${runId} is ${found.value.status}. Cancel it first (POST /threads/${threadId}/runs/${runId}/cancel; action=rollback also deletes it).`,
        );
      }
      this.#engine.forgetRun(found.value);
      return ok(null);
    });
  }

  /** POST /threads/{thread_id}/runs/{run_id}/cancel. */
  cancel(threadId: string, runId: string, action: CancelAction): Result<Run> {
    const found = this.get(threadId, runId);
    if (!found.ok) return found;
    this.#storage.transactionSync(() => this.#engine.cancel(found.value, action));
    this.#engine.kick();
    return found;
  }

  /**
   * POST /runs/cancel: every pending and/or running run, or the listed runs of a thread; 404 when
   * that is none (or, for a list, when one of them is not the thread's).
   */
  cancelMany(selection: CancelSelection, action: CancelAction): Result<number> {
    const runs = this.#storage.transactionSync((): Result<Run[]> => {
      if ("status" in selection) {
        const statuses = selection.status === "all" ? ["pending", "running"] : [selection.status];
        return ok(this.#table.allInflight().filter((r) => statuses.includes(r.status)));
      }
      const found = selection.runIds.map((id) => this.#table.find(id)).filter((r): r is Run => r?.thread_id === selection.threadId);
      return found.length === selection.runIds.length ? ok(found) : refuse(404, `Not every run in run_ids is a run of thread ${selection.threadId}.`);
    });
    if (!runs.ok) return runs;
    if (runs.value.length === 0) return refuse(404, "No runs found to cancel.");
    this.#storage.transactionSync(() => {
      for (const run of runs.value) this.#engine.cancel(run, action);
    });
    this.#engine.kick();
    return ok(runs.value.length);
  }

  /**
   * What wait and join answer once the run is over: the thread's values as the run left them,
   * `{"__error__": {...}}` for a failed run, or (a run rolled back or deleted meanwhile) the
   * thread's current values. 404 for an unknown thread or run, decided before any waiting.
   */
  async result(threadId: string, runId: string): Promise<Result<JsonValue>> {
    const found = this.get(threadId, runId);
    if (!found.ok) return found;
    return ok(await this.#outcome(threadId, runId));
  }

  async #outcome(threadId: string, runId: string): Promise<JsonValue> {
    const settled = await this.#engine.settled(runId);
    return settled ?? ((this.#threads.find(threadId)?.values ?? {}) as JsonValue);
  }

  /**
   * A run's event stream: what it already emitted after `after`, then what comes, until it ends.
   * 404 for an unknown thread or run.
   */
  openStream(threadId: string, runId: string, request: RunStreamRequest): Result<Response> {
    const found = this.get(threadId, runId);
    return found.ok ? ok(this.#stream(found.value, request)) : found;
  }

  /**
   * A pruned run's replay: its summary alone (the run is over; what was kept of its tail would
   * only repeat the values the summary ends with).
   */
  #prunedReplay(run: Run, throughSeq: number): LoggedEvent[] {
    const progress = this.#table.progress(run.run_id);
    return summaryOf(run.run_id, progress?.attempt ?? 1, progress?.result, throughSeq);
  }

  #stream(run: Run, request: RunStreamRequest): Response {
    const runId = run.run_id;
    const over = run.status !== "pending" && run.status !== "running";
    // One synchronous step: what is saved so far, then listening for the rest.
    const pruned = this.#events.pruned(runId);
    const replay = pruned && over && request.after < pruned.throughSeq ? this.#prunedReplay(run, pruned.throughSeq) : this.#events.ofRun(runId, request.after);
    const live = over ? undefined : this.#events.listenToRun(runId);
    return loggedEventStream({ replay, live, withIds: request.withIds, accept: modeFilter(request.modes), waitUntil: this.#waitUntil });
  }
}

/**
 * What a late joiner of a run whose first events were pruned (runs/event-log.ts,
 * EVENTS_PER_THREAD) gets instead of a stream missing its start: the run's `metadata`, then its
 * outcome as join answers it, as one `values` event (or its `error`), both with the id of the last
 * event pruned.
 */
function summaryOf(runId: string, attempt: number, outcome: JsonValue | undefined, seq: number): LoggedEvent[] {
  const error = outcome !== null && typeof outcome === "object" && !Array.isArray(outcome) ? (outcome as Record<string, JsonValue>).__error__ : undefined;
  const end = error !== undefined ? { event: "error", data: error } : { event: "values", data: outcome ?? {} };
  return [
    { seq, runId, scope: "run", event: "metadata", data: { run_id: runId, attempt } },
    { seq, runId, scope: "run", ...end },
  ];
}

/** Shows the events of the modes asked for (and always metadata and errors). */
function modeFilter(modes: readonly string[]): ((event: LoggedEvent) => boolean) | undefined {
  if (modes.length === 0) return undefined;
  const shown = new Set(modes);
  return (event) => ALWAYS_SHOWN.has(event.event) || shown.has(event.event);
}

const runNotFound = (threadId: string, runId: string) => refuse(404, `Run ${runId} not found in thread ${threadId}.`);
