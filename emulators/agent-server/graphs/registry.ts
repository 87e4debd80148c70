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
 * The namespace both real servers derive a default assistant's id in (`NAMESPACE_GRAPH` in the
 * Python server's langgraph_api/graph.py and the JS server's graph/load.mts): one character off
 * the standard URL namespace (6ba7b811-...), so not `uuid5(NAMESPACE_URL, ...)`.
 */
const NAMESPACE_GRAPH = "6ba7b821-9dad-11d1-80b4-00c04fd430c8";

/** The id of a graph's default assistant, as the real server derives it (for "agent": fe096781-5601-53d2-b2f6-0d3403f7e9ca). */
export function defaultAssistantId(graphId: string): string {
  return uuidv5(graphId, NAMESPACE_GRAPH);
}
