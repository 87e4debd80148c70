import type { ValidationError } from "../../../src/http/fastapi-errors.ts";
import type { Graph, ThreadValues } from "../graphs/graph.ts";
import type { JsonObject } from "../../shared/pydantic/json.ts";
import { START } from "../runs/execute.ts";
import { applyStateUpdate } from "./state-update.ts";

/** LangGraph's input step: an update as `__input__` saves the input, not yet applied (next: `__start__`). */
export const INPUT = "__input__";

/** One update of a superstep (ThreadSuperstepUpdate; `command` is refused by the schema). */
export interface SuperstepUpdate {
  readonly as_node: string;
  readonly values?: unknown;
}

/** What one superstep leaves: the checkpoint to write. */
export interface PlannedCheckpoint {
  readonly source: "input" | "update";
  readonly values: ThreadValues;
  readonly next: readonly string[];
  readonly writes: JsonObject;
}

export type SuperstepPlan = { readonly ok: true; readonly checkpoints: PlannedCheckpoint[] } | { readonly ok: false; readonly errors: ValidationError[] };

/**
 * LangGraph's `bulk_update_state` (POST /threads `supersteps`) on the message graphs: each superstep
 * is one checkpoint, its updates applied in order as POST /threads/{id}/state applies one, and the
 * step after its last update is next. Worked out before anything is written, so a refused update
 * leaves no thread behind; its 422 names where it sits in `supersteps`.
 */
export function planSupersteps(graph: Graph, supersteps: readonly { readonly updates: readonly SuperstepUpdate[] }[], newId: () => string): SuperstepPlan {
  const checkpoints: PlannedCheckpoint[] = [];
  let values: ThreadValues = {};
  for (const [step, superstep] of supersteps.entries()) {
    let source: PlannedCheckpoint["source"] = "update";
    let next: readonly string[] = [];
    const writes: Record<string, unknown> = {};
    for (const [index, update] of superstep.updates.entries()) {
      if (update.as_node === INPUT) {
        source = "input";
        next = [START];
        writes[START] = update.values ?? null;
        continue;
      }
      const applied = applyStateUpdate(graph, values, { values: update.values, asNode: update.as_node, lastWriter: undefined }, newId);
      if (!applied.ok) {
        const at = ["body", "supersteps", step, "updates", index];
        return { ok: false, errors: applied.errors.map((error) => ({ ...error, loc: [...at, ...error.loc.slice(1)] })) };
      }
      values = applied.values;
      next = applied.next;
      writes[applied.asNode] = update.values ?? null;
    }
    checkpoints.push({ source, values, next, writes: writes as JsonObject });
  }
  return { ok: true, checkpoints };
}
