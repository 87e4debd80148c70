import type { z } from "zod";
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
}

/** One node of a graph. A node that throws fails the run (an `error` event). */
export interface GraphNode<Context> {
  readonly name: string;
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
