import { toValidationErrors, type ValidationError } from "../../../src/http/fastapi-errors.ts";
import type { Graph } from "./graph.ts";

/**
 * Checks a `context` object against the graph's context schema. Errors are FastAPI-shaped with
 * `loc` under `["body", "context", ...]`, as the request field they came from.
 */
export function checkContext(graph: Graph, context: Record<string, unknown>): ValidationError[] {
  const result = graph.contextSchema.safeParse(context);
  if (result.success) return [];
  const issues = result.error.issues.map((issue) => ({ ...issue, path: ["context", ...issue.path] }));
  return toValidationErrors(issues, "body", { context }).map((error) => ({
    ...error,
    msg: error.type === "extra_forbidden" ? `${error.msg} (graph '${graph.graphId}' takes ${contextKeys(graph)})` : error.msg,
  }));
}

function contextKeys(graph: Graph): string {
  const shape = (graph.contextSchema as unknown as { shape?: Record<string, unknown> }).shape;
  const keys = shape ? Object.keys(shape) : [];
  return keys.length ? keys.join(", ") : "no context keys";
}
