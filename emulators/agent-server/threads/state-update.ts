import type { ValidationError } from "../../../src/http/fastapi-errors.ts";
import type { Graph, ThreadValues } from "../graphs/graph.ts";
import { addMessages, inputMessages } from "../graphs/messages.ts";
import { START } from "../runs/execute.ts";

/** What POST /threads/{thread_id}/state asks: values to write as if a node had written them. */
export interface StateUpdateRequest {
  readonly values: unknown;
  readonly asNode: string | undefined;
  /** The node that wrote the checkpoint being updated, if a node did. */
  readonly lastWriter: string | undefined;
}

export type StateUpdate =
  | { readonly ok: true; readonly values: ThreadValues; readonly asNode: string; readonly next: readonly string[] }
  | { readonly ok: false; readonly errors: ValidationError[] };

/**
 * LangGraph's `update_state` on the message graphs: `values.messages` go through `add_messages`
 * (appended, or replacing a message with the same id), as if `as_node` had returned them, and the
 * nodes after `as_node` are next. Without `as_node`, the node that wrote the checkpoint (else the
 * graph's last node) is taken, as LangGraph takes the last node to have run. `__start__` counts as
 * the step before the first node. The graphs' state has only `messages`: another key, or a message
 * the graph cannot read, is a 422.
 */
export function applyStateUpdate(graph: Graph, base: ThreadValues, request: StateUpdateRequest, newId: () => string): StateUpdate {
  const names = graph.nodes.map((n) => n.name);
  const asNode = request.asNode ?? (request.lastWriter !== undefined && names.includes(request.lastWriter) ? request.lastWriter : names.at(-1)!);
  const steps = [START, ...names];
  if (!steps.includes(asNode)) {
    return refuse(
      ["body", "as_node"],
      request.asNode,
      `graph '${graph.graphId}' has no node '${asNode}'; its nodes are ${names.map((n) => `'${n}'`).join(", ")}`,
    );
  }
  const next = steps.slice(steps.indexOf(asNode) + 1, steps.indexOf(asNode) + 2);
  const update = request.values;
  if (update === null || update === undefined) return { ok: true, values: base, asNode, next };
  if (typeof update !== "object" || Array.isArray(update)) {
    return refuse(["body", "values"], update, 'the message graphs take one update, an object like {"messages": [...]}');
  }
  const unknown = Object.keys(update).filter((key) => key !== "messages");
  if (unknown.length > 0)
    return refuse(
      ["body", "values", unknown[0]!],
      (update as Record<string, unknown>)[unknown[0]!],
      `the state of graph '${graph.graphId}' has only 'messages'`,
    );
  try {
    const added = inputMessages(update, newId);
    return { ok: true, values: { ...base, messages: addMessages(base.messages ?? [], added) }, asNode, next };
  } catch (error) {
    return refuse(["body", "values", "messages"], (update as Record<string, unknown>).messages, error instanceof Error ? error.message : String(error));
  }
}

function refuse(loc: ReadonlyArray<string | number>, input: unknown, reason: string): StateUpdate {
  return { ok: false, errors: [{ type: "value_error", loc, msg: `Value error, ${reason}`, ...(input === undefined ? {} : { input }) }] };
}
