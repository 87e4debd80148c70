// The uuid package for name-based ids (v5): new random ids come from crypto.randomUUID().
import { v5 as uuidv5 } from "uuid";
import type { Graph } from "./graph.ts";
import { agentGraph } from "./agent.ts";
import { approvalGraph } from "./approval.ts";
import { pipelineGraph } from "./pipeline.ts";

/** The deployed graphs, by graph id (what langgraph.json would list). */
export const GRAPHS: ReadonlyMap<string, Graph> = new Map<string, Graph>(
  // Each graph is typed by its own context; the registry hands out contexts its schema checked.
  [agentGraph, pipelineGraph, approvalGraph].map((graph) => [graph.graphId, graph as unknown as Graph]),
);

/** The graph deployed under `graphId`, if any. */
export function findGraph(graphId: string): Graph | undefined {
  return GRAPHS.get(graphId);
}

/** Ids of the deployed graphs, for messages that list them. */
export const graphIds = (): string[] => [...GRAPHS.keys()];

/**
 * The id of a graph's default assistant, as the real server derives it:
 * `uuid5(NAMESPACE_URL, graph_id)` (for "agent": 7c9fac6d-1b9a-54e5-89e7-6c8b5e3ae414).
 */
export function defaultAssistantId(graphId: string): string {
  return uuidv5(graphId, uuidv5.URL);
}
