import type { GraphNode, NodeUpdate, ThreadValues } from "../graphs/graph.ts";
import type { JsonObject } from "../../shared/pydantic/json.ts";
import type { ServerSentEvent } from "../../shared/sse.ts";

/** The name LangGraph gives a compiled graph's own run in callback events. */
const GRAPH_RUN_NAME = "LangGraph";

/** A node's task as the `tasks` mode and the `events` mode's metadata name it. */
export interface TaskRef {
  readonly id: string;
  readonly node: GraphNode<Record<string, unknown>>;
  /** LangGraph's step number of the step that runs it (the checkpoint before it plus one). */
  readonly step: number;
}

/** A checkpoint as the `checkpoints` mode streams it. */
export interface CheckpointRef {
  readonly source: "input" | "loop";
  readonly step: number;
  readonly values: ThreadValues;
  readonly next: readonly string[];
}

/**
 * The events of the stream modes that watch a run's inside, as the real server (LangGraph's loop
 * and LangChain's callbacks) sends them:
 *
 * - `checkpoints`: each checkpoint saved, `{values, metadata: {source, step, parents}, next}`;
 * - `tasks`: a node's task as it starts, `{id, name, input, triggers, interrupts, metadata}`, and
 *   as it ends, `{id, name, result, interrupts, error}`;
 * - `events`: LangChain callback events `{event, name, run_id, tags, metadata, data}`, the graph's
 *   own chain (run id the run's) around each node's chain, and inside a node that answers as a
 *   chat model (`chatModel`), that model's start, one stream event per word and its end;
 * - `messages-tuple`: each of those words as `[chunk, metadata]` (the model's metadata and tags);
 * - `messages`: the server's own view of the same: `messages/metadata` (keyed by the message's id)
 *   before its first word, `messages/partial` with the words so far after each, and
 *   `messages/complete` for each message the first time a state of the run holds it (the input's
 *   and the thread's earlier ones included), after that state's `values`.
 *
 * Each method sends nothing unless its mode was asked for.
 */
export class ModeEvents {
  readonly #modes: ReadonlySet<string>;
  readonly #emit: (event: ServerSentEvent) => void;
  readonly #runId: string;
  readonly #metadata: JsonObject;
  readonly #newId: () => string;
  /** Callback run ids of the nodes started and not yet ended. */
  readonly #nodeRuns = new Map<string, string>();
  /** The ids of the messages `messages/complete` sent. */
  readonly #completed = new Set<string>();

  constructor(options: { modes: ReadonlySet<string>; emit: (event: ServerSentEvent) => void; runId: string; metadata: JsonObject; newId: () => string }) {
    this.#modes = options.modes;
    this.#emit = options.emit;
    this.#runId = options.runId;
    this.#metadata = options.metadata;
    this.#newId = options.newId;
  }

  checkpoint({ source, step, values, next }: CheckpointRef): void {
    if (this.#modes.has("checkpoints")) this.#emit({ event: "checkpoints", data: { values, metadata: { source, step, parents: {} }, next } });
  }

  /** A state of the run (as `values` streams it): the messages in it not yet complete are. */
  valuesReached(values: ThreadValues): void {
    if (!this.#modes.has("messages")) return;
    const fresh = (values.messages ?? []).filter((m) => !this.#completed.has(m.id));
    for (const message of fresh) this.#completed.add(message.id);
    if (fresh.length > 0) this.#emit({ event: "messages/complete", data: fresh });
  }

  graphStarted(input: unknown): void {
    this.#callback("on_chain_start", GRAPH_RUN_NAME, this.#runId, [], this.#metadata, { input: input ?? null });
  }

  graphEnded(values: ThreadValues): void {
    this.#callback("on_chain_end", GRAPH_RUN_NAME, this.#runId, [], this.#metadata, { output: values });
  }

  nodeStarted(task: TaskRef, values: ThreadValues): void {
    const name = task.node.name;
    if (this.#modes.has("tasks")) {
      this.#emit({ event: "tasks", data: { id: task.id, name, input: values, triggers: triggersOf(name), interrupts: [], metadata: this.#metadata } });
    }
    const runId = this.#newId();
    this.#nodeRuns.set(task.id, runId);
    this.#callback("on_chain_start", name, runId, stepTags(task), this.#nodeMetadata(task), { input: values });
  }

  /** The node wrote its update: a chat-model node's model events come first, then its chain's end. */
  nodeEnded(task: TaskRef, values: ThreadValues, update: NodeUpdate): void {
    const name = task.node.name;
    const model = task.node.chatModel;
    if (model !== undefined) this.#chatModel(task, model, values, update);
    this.#callback("on_chain_end", name, this.#nodeRun(task), stepTags(task), this.#nodeMetadata(task), { output: update, input: values });
    this.#taskResult(task, update as unknown as JsonObject, [], null);
  }

  /** The node paused (`interrupt`): its task ends with the interrupts and no result. */
  nodePaused(task: TaskRef, interrupts: readonly JsonObject[]): void {
    this.#nodeRuns.delete(task.id);
    this.#taskResult(task, {}, interrupts, null);
  }

  /** The node failed: its chain reports the error, its task ends with it. */
  nodeFailed(task: TaskRef, error: JsonObject): void {
    this.#callback("on_chain_error", task.node.name, this.#nodeRun(task), stepTags(task), this.#nodeMetadata(task), { error });
    this.#taskResult(task, {}, [], error);
  }

  #taskResult(task: TaskRef, result: JsonObject, interrupts: readonly JsonObject[], error: JsonObject | null): void {
    if (this.#modes.has("tasks")) this.#emit({ event: "tasks", data: { id: task.id, name: task.node.name, result, interrupts, error } });
  }

  /** What a chat model's callbacks say: its input, each word of its reply as a chunk, its message. */
  #chatModel(task: TaskRef, model: string, values: ThreadValues, update: NodeUpdate): void {
    if (!["events", "messages", "messages-tuple"].some((mode) => this.#modes.has(mode))) return;
    const message = update.messages.findLast((m) => m.type === "ai");
    if (!message) return;
    const runId = this.#newId();
    const metadata = { ...this.#nodeMetadata(task), ls_integration: "langchain_chat_model", ls_provider: model, ls_model_type: "chat" };
    const input = { messages: [values.messages ?? []] };
    this.#callback("on_chat_model_start", model, runId, [], metadata, { input });
    let sofar = "";
    // As a streaming model's tokens come: word by word, each keeping its trailing space.
    for (const [index, piece] of message.content.split(/(?<= )/).entries()) {
      const chunk = {
        content: piece,
        tool_calls: [],
        invalid_tool_calls: [],
        tool_call_chunks: [],
        additional_kwargs: {},
        response_metadata: {},
        id: message.id,
        type: "ai",
      };
      this.#callback("on_chat_model_stream", model, runId, [], metadata, { chunk });
      if (this.#modes.has("messages-tuple")) this.#emit({ event: "messages", data: [chunk, { tags: [], ...metadata }] });
      if (this.#modes.has("messages")) {
        if (index === 0) this.#emit({ event: "messages/metadata", data: { [message.id]: { metadata } } });
        sofar += piece;
        this.#emit({ event: "messages/partial", data: [{ ...chunk, content: sofar }] });
      }
    }
    this.#callback("on_chat_model_end", model, runId, [], metadata, { output: message, input });
  }

  #nodeRun(task: TaskRef): string {
    const runId = this.#nodeRuns.get(task.id) ?? this.#newId();
    this.#nodeRuns.delete(task.id);
    return runId;
  }

  /** The run's metadata with where in the graph the callback comes from, as LangGraph adds it. */
  #nodeMetadata(task: TaskRef): JsonObject {
    const namespace = `${task.node.name}:${task.id}`;
    return {
      ...this.#metadata,
      langgraph_step: task.step,
      langgraph_node: task.node.name,
      langgraph_triggers: triggersOf(task.node.name),
      langgraph_path: ["__pregel_pull", task.node.name],
      langgraph_checkpoint_ns: namespace,
      checkpoint_ns: namespace,
    };
  }

  #callback(event: string, name: string, runId: string, tags: readonly string[], metadata: JsonObject, data: unknown): void {
    if (this.#modes.has("events")) this.#emit({ event: "events", data: { event, data, name, tags, run_id: runId, metadata } });
  }
}

/** What triggers a node in the emulated (linear) graphs: the edge from the node before it. */
const triggersOf = (node: string) => [`branch:to:${node}`];

const stepTags = (task: TaskRef) => [`graph:step:${task.step}`];
