import type { JsonObject } from "../../../shared/pydantic/json.ts";
import type { Result } from "../../../shared/result.ts";
import type { CreatedRun, RunStore } from "../../runs/store.ts";
import { runRequest } from "../../runs/request.ts";
import type { RunTable } from "../../runs/run-table.ts";
import { RunCreate, type Run, type RunStatus } from "../../runs/schema.ts";
import type { CheckpointLedger } from "../../threads/checkpoints.ts";
import type { ThreadStateStore } from "../../threads/state-store.ts";
import type { ThreadStore } from "../../threads/store.ts";
import { pendingInterrupts } from "../../threads/thread-state.ts";
import { done, isObject, refused, type CommandResult, type ProtocolCommand } from "./envelope.ts";

/** What the commands work with, all inside the state object. */
export interface CommandParts {
  readonly threads: ThreadStore;
  readonly runs: RunStore;
  readonly runTable: RunTable;
  readonly checkpoints: CheckpointLedger;
  readonly threadState: ThreadStateStore;
}

/** Every run a command starts streams these modes, which the protocol's events are made from. */
const PROTOCOL_STREAM_MODES = ["values", "updates"];

/** A finished run's tree status (AgentStatus), by its status. */
const TREE_STATUS: Record<RunStatus, string> = {
  pending: "started",
  running: "running",
  success: "completed",
  error: "failed",
  timeout: "failed",
  interrupted: "interrupted",
};

/**
 * The protocol's commands on one thread, over HTTP (`POST /threads/{thread_id}/commands`) and on
 * a socket alike (the socket adds `subscription.*`, protocols/v2/sockets.ts): `run.start`,
 * `input.respond`, `input.inject`, `agent.getTree`, `state.get`, `state.listCheckpoints`,
 * `state.fork`. Runs go through the run store as the REST API's do, so they queue, refuse and
 * checkpoint the same way, and the engine writes their events (protocols/v2/run-events.ts).
 */
export class ProtocolCommands {
  readonly #parts: CommandParts;

  constructor(parts: CommandParts) {
    this.#parts = parts;
  }

  execute(threadId: string, { method, params }: ProtocolCommand, stepDelayMs: number): CommandResult {
    switch (method) {
      case "run.start":
        return this.#runStart(threadId, params, stepDelayMs);
      case "input.respond":
        return this.#respond(threadId, params, stepDelayMs);
      case "input.inject":
        return this.#inject(threadId, params, stepDelayMs);
      case "agent.getTree":
        return this.#tree(threadId, params);
      case "state.get":
        return this.#state(threadId, params);
      case "state.listCheckpoints":
        return this.#checkpointList(threadId, params);
      case "state.fork":
        return this.#fork(threadId, params, stepDelayMs);
      case "subscription.subscribe":
      case "subscription.unsubscribe":
        return refused("not_supported", `${method} is a WebSocket command: over HTTP, each POST /threads/{thread_id}/stream/events is one subscription.`);
      default:
        return refused("unknown_command", `Unknown command method '${method}'.`);
    }
  }

  /**
   * `run.start`: a new run with the input; the thread is created if it does not exist yet. On a
   * thread paused on interrupts, the input is the resume value, as the protocol says.
   */
  #runStart(threadId: string, params: Record<string, unknown>, stepDelayMs: number): CommandResult {
    if (typeof params.assistant_id !== "string") return refused("invalid_argument", "run.start needs `assistant_id`: an assistant UUID or a graph id.");
    const paused = this.#pending(threadId).length > 0;
    const { assistant_id, input, config, metadata, context, multitask_strategy } = params;
    return this.#start(
      threadId,
      { assistant_id, config, metadata, context, multitask_strategy, ...(paused ? { command: { resume: input ?? null } } : { input }) },
      stepDelayMs,
    );
  }

  /** `input.respond`: resumes the run paused on the interrupt with the response. */
  #respond(threadId: string, params: Record<string, unknown>, stepDelayMs: number): CommandResult {
    const answers = Array.isArray(params.responses) ? params.responses : [params];
    if (answers.length !== 1) return refused("not_supported", "The emulator's graphs pause on one interrupt at a time: answer it with one response.");
    const answer = answers[0];
    if (!isObject(answer) || typeof answer.interrupt_id !== "string" || !("response" in answer)) {
      return refused("invalid_argument", "input.respond needs `interrupt_id` and `response` (or `responses`: [{namespace, interrupt_id, response}]).");
    }
    if (!isRootNamespace(answer.namespace))
      return refused("no_such_namespace", `No agent at namespace ${JSON.stringify(answer.namespace)}: the graphs have only the root ([]).`);
    if (!this.#pending(threadId).includes(answer.interrupt_id))
      return refused("no_such_interrupt", `Interrupt ${answer.interrupt_id} is not pending on thread ${threadId}.`);
    const last = this.#lastRun(threadId);
    if (!last) return refused("no_such_run", `Thread ${threadId} has no run to resume.`);
    const command = {
      resume: answer.response ?? null,
      ...(params.update !== undefined ? { update: params.update } : {}),
      ...(params.goto !== undefined ? { goto: params.goto } : {}),
    };
    return this.#start(threadId, { assistant_id: last.assistant_id, command, config: params.config, metadata: params.metadata }, stepDelayMs);
  }

  /** `input.inject`: the message joins the thread as the input of a run queued after those in flight. */
  #inject(threadId: string, params: Record<string, unknown>, stepDelayMs: number): CommandResult {
    const message = params.message;
    if (!isObject(message) || typeof message.content !== "string" || (message.role !== "user" && message.role !== "system")) {
      return refused("invalid_argument", 'input.inject needs `message`: {role: "user" | "system", content}.');
    }
    if (!isRootNamespace(params.namespace))
      return refused("no_such_namespace", `No agent at namespace ${JSON.stringify(params.namespace)}: the graphs have only the root ([]).`);
    const last = this.#lastRun(threadId);
    if (!last) return refused("no_such_run", `Thread ${threadId} has no run to inject into: start one with run.start.`);
    const outcome = this.#start(threadId, { assistant_id: last.assistant_id, input: { messages: [message] }, multitask_strategy: "enqueue" }, stepDelayMs);
    return outcome.ok ? done() : outcome;
  }

  /** `agent.getTree`: the root agent (the graphs have no subgraphs) and the run's status. */
  #tree(threadId: string, params: Record<string, unknown>): CommandResult {
    const thread = this.#parts.threads.find(threadId);
    if (!thread) return noThread(threadId);
    let run: Run | undefined;
    if (params.run_id !== undefined) {
      run = typeof params.run_id === "string" ? this.#parts.runTable.find(params.run_id) : undefined;
      if (!run || run.thread_id !== threadId) return refused("no_such_run", `Run ${String(params.run_id)} not found on thread ${threadId}.`);
    } else run = this.#lastRun(threadId);
    const graphName = typeof thread.metadata.graph_id === "string" ? thread.metadata.graph_id : "";
    return done({
      tree: { namespace: [], status: run ? TREE_STATUS[run.status] : "started", graph_name: graphName, ...(run ? { metadata: { run_id: run.run_id } } : {}) },
    });
  }

  /** `state.get`: the latest checkpoint's values (only `keys`, when given) and its id. */
  #state(threadId: string, params: Record<string, unknown>): CommandResult {
    if (!isRootNamespace(params.namespace))
      return refused("no_such_namespace", `No agent at namespace ${JSON.stringify(params.namespace)}: the graphs have only the root ([]).`);
    if (params.keys !== undefined && !(Array.isArray(params.keys) && params.keys.every((k) => typeof k === "string")))
      return refused("invalid_argument", "`keys` must be a list of strings.");
    const state = this.#parts.threadState.state(threadId);
    if (!state.ok) return fromRefusal(state);
    const values = Array.isArray(params.keys)
      ? Object.fromEntries(Object.entries(state.value.values).filter(([key]) => (params.keys as string[]).includes(key)))
      : state.value.values;
    const id = state.value.checkpoint.checkpoint_id;
    return done({ values, ...(id ? { checkpoint: { id } } : {}) });
  }

  /** `state.listCheckpoints`: newest first, `limit` (10) and `before` as the history takes them. */
  #checkpointList(threadId: string, params: Record<string, unknown>): CommandResult {
    if (!isRootNamespace(params.namespace))
      return refused("no_such_namespace", `No agent at namespace ${JSON.stringify(params.namespace)}: the graphs have only the root ([]).`);
    const limit = params.limit ?? 10;
    if (!(Number.isSafeInteger(limit) && (limit as number) > 0)) return refused("invalid_argument", "`limit` must be a positive integer.");
    if (params.before !== undefined && typeof params.before !== "string") return refused("invalid_argument", "`before` must be a checkpoint id.");
    if (!this.#parts.threads.find(threadId)) return noThread(threadId);
    const list = this.#parts.checkpoints.list(threadId, { limit: limit as number, before: params.before as string | undefined });
    return done({
      checkpoints: list.map((c) => ({
        id: c.checkpoint_id,
        timestamp: c.created_at,
        step: c.step,
        metadata: { ...c.metadata, source: c.source, parent_id: c.parent_checkpoint_id },
      })),
    });
  }

  /** `state.fork`: a new checkpoint after the one named (a branch), then a run from there. */
  #fork(threadId: string, params: Record<string, unknown>, stepDelayMs: number): CommandResult {
    if (typeof params.checkpoint_id !== "string") return refused("invalid_argument", "state.fork needs `checkpoint_id`.");
    if (!this.#parts.threads.find(threadId)) return noThread(threadId);
    if (!this.#parts.checkpoints.get(threadId, params.checkpoint_id))
      return refused("no_such_checkpoint", `Checkpoint ${params.checkpoint_id} not found on thread ${threadId}.`);
    const last = this.#lastRun(threadId);
    if (!last) return refused("no_such_run", `Thread ${threadId} has never run: there is nothing to fork.`);
    const branched = this.#parts.threadState.update(threadId, { values: null, checkpointId: params.checkpoint_id });
    if (!branched.ok) return fromRefusal(branched);
    const started = this.#start(threadId, { assistant_id: last.assistant_id, input: params.input ?? null, config: params.config }, stepDelayMs);
    return started.ok ? done({ run_id: started.result.run_id, thread_id: threadId }) : started;
  }

  /** Creates a run as POST /threads/{thread_id}/runs would (thread created when missing). */
  #start(threadId: string, fields: Record<string, unknown>, stepDelayMs: number): CommandResult {
    const body = RunCreate.safeParse(withoutUndefined({ ...fields, stream_mode: PROTOCOL_STREAM_MODES, if_not_exists: "create" }));
    if (!body.success) {
      const issue = body.error.issues[0]!;
      return refused("invalid_argument", `${issue.path.join(".") || "params"}: ${issue.message}`);
    }
    const created: Result<CreatedRun> = this.#parts.runs.create(runRequest({ kind: "thread", threadId, body: body.data }, stepDelayMs));
    if (!created.ok) return fromRefusal(created);
    return done({ run_id: created.value.run.run_id });
  }

  #pending(threadId: string): string[] {
    return pendingInterruptIds(this.#parts.checkpoints, threadId);
  }

  #lastRun(threadId: string): Run | undefined {
    return this.#parts.runTable.ofThread(threadId, { limit: 1, offset: 0 })[0];
  }
}

/** The interrupt ids the thread's latest checkpoint holds pending (what `input.respond` answers). */
export function pendingInterruptIds(checkpoints: Pick<CheckpointLedger, "latest">, threadId: string): string[] {
  return Object.values(pendingInterrupts(checkpoints.latest(threadId))).flatMap((list) => list.map((i) => i.id));
}

/** The root namespace, `[]`, or none given. */
const isRootNamespace = (namespace: unknown) => namespace === undefined || (Array.isArray(namespace) && namespace.length === 0);

const noThread = (threadId: string) => refused("invalid_argument", `Thread ${threadId} not found.`);

/** A store's refusal in the protocol's words (its message kept; 422 items joined). */
function fromRefusal(result: Extract<Result<unknown>, { ok: false }>): CommandResult {
  const message = typeof result.detail === "string" ? result.detail : result.detail.map((e) => `${e.loc.join(".")}: ${e.msg}`).join("; ");
  return refused("invalid_argument", message);
}

function withoutUndefined(fields: Record<string, unknown>): JsonObject {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)) as JsonObject;
}
