import type { Graph } from "../graphs/graph.ts";

/** LangGraph's names for the virtual first and last node of every graph. */
export const START = "__start__";
export const END = "__end__";

/** One node of a drawn graph, as LangChain's `Graph.to_json()` writes it (the server drops `data.id`). */
export interface DrawnNode {
  readonly id: string;
  readonly type: "schema" | "runnable";
  readonly data: string | { readonly name: string };
}

export interface DrawnEdge {
  readonly source: string;
  readonly target: string;
}

/** GET /assistants/{id}/graph: the nodes and edges a client (LangGraph Studio) draws. */
export interface DrawnGraph {
  readonly nodes: readonly DrawnNode[];
  readonly edges: readonly DrawnEdge[];
}

/**
 * The graph as the real server draws it: `__start__`, each node in order, `__end__`, joined by
 * plain edges (the emulated graphs are linear, so no edge is conditional). The emulated graphs
 * have no subgraphs, so `xray` draws the same picture at every depth.
 *
 * @example
 * drawGraph(agentGraph).edges // [{source: "__start__", target: "agent"}, {source: "agent", target: "__end__"}]
 */
export function drawGraph(graph: Graph): DrawnGraph {
  const names = graph.nodes.map((node) => node.name);
  const nodes: DrawnNode[] = [
    { id: START, type: "schema", data: START },
    ...names.map((name): DrawnNode => ({ id: name, type: "runnable", data: { name } })),
    { id: END, type: "schema", data: END },
  ];
  const path = [START, ...names, END];
  const edges = path.slice(1).map((target, i): DrawnEdge => ({ source: path[i]!, target }));
  return { nodes, edges };
}
