import type { Graph, ThreadValues } from "./graph.ts";
import { lastHumanMessage } from "./messages.ts";

/**
 * A user message containing this text makes a run wait before its graph's last node until the
 * run is cancelled (or its thread deleted), like a model call that does not come back. With it a
 * client, or a test, has a run that is certainly still running when it cancels it, interrupts or
 * rolls it back with a second run, or queues another behind it: no clock involved.
 */
export const HOLD_MARKER = "[[hold]]";

/** Whether the run holds before node `index` of `graph` (only ever the last node). */
export function holdsBefore(graph: Graph, index: number, values: ThreadValues): boolean {
  return index === graph.nodes.length - 1 && (lastHumanMessage(values.messages ?? [])?.content.includes(HOLD_MARKER) ?? false);
}
