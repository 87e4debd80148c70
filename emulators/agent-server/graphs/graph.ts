import type { z } from "zod";
import type { JsonObject } from "../../shared/pydantic/json.ts";
import type { Message } from "./messages.ts";

/** A thread's values as the message graphs shape them. */
export interface ThreadValues {
  readonly messages?: readonly Message[];
}

/** What one node step returns: the messages it adds (applied with `add_messages`). */
export interface NodeUpdate {
  readonly messages: readonly Message[];
}

/** What a node sees: the thread's values so far, the run's context, and an id for its output. */
export interface NodeInput<Context> {
  readonly values: ThreadValues;
  readonly context: Context;
  /** A deterministic message id for this node in this run. */
  readonly messageId: string;
  /**
   * LangGraph's `interrupt(value)`: pauses the run before this node writes anything, showing
   * `value` to the client; when a run resumes this node with `command.resume`, returns that value
   * instead. The run saves no update for a node that paused, and runs it again on resume.
   */
  readonly interrupt?: (value: JsonObject) => unknown;
}

/** Calls the node's `interrupt` (a node run outside a run, with none, always pauses). */
export function interrupt<Context>(input: NodeInput<Context>, value: JsonObject): unknown {
  if (input.interrupt) return input.interrupt(value);
  throw new NodeInterrupt(value);
}

/** Thrown by `interrupt` when no resume value waits for the node: the run pauses there. */
export class NodeInterrupt extends Error {
  override name = "NodeInterrupt";
  readonly value: JsonObject;

  constructor(value: JsonObject) {
    super("The node paused for input (interrupt).");
    this.value = value;
  }
}

/** One node of a graph. A node that throws fails the run (an `error` event). */
export interface GraphNode<Context> {
  readonly name: string;
  /**
   * The chat model the node answers as (LangChain's class name), if it does: the `events` stream
   * mode then shows that model's start, its reply word by word, and its end, as a node calling a
   * streaming model sends them.
   */
  readonly chatModel?: string;
  run(input: NodeInput<Context>): NodeUpdate;
}

/**
 * A deployed graph: its id (what `graph_id` names), the schema its `context` must match, and its
 * nodes, which run in order (the emulated graphs are linear: START -> nodes... -> END).
 */
export interface Graph<Context = Record<string, unknown>> {
  readonly graphId: string;
  readonly description: string;
  readonly contextSchema: z.ZodType<Context>;
  readonly nodes: readonly GraphNode<Context>[];
}

/** Text of the reply parts that are set, joined so each configuration value stays visible. */
export const joinReply = (...parts: ReadonlyArray<string | undefined>): string => parts.filter((p) => p !== undefined && p !== "").join(" | ");
