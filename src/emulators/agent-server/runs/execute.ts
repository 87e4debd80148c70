import type { Graph, ThreadValues } from "../graphs/graph.ts";
import { addMessages, inputMessages } from "../graphs/messages.ts";
import type { ServerSentEvent } from "../../shared/sse.ts";

/** Every `stream_mode` the API accepts (RunCreateStateful). */
export const STREAM_MODES = ["values", "messages", "messages-tuple", "tasks", "checkpoints", "updates", "events", "debug", "custom"] as const;
export type StreamMode = (typeof STREAM_MODES)[number];

/** The modes the emulator produces events for; the others are accepted and stay silent. */
export const EMITTED_MODES: readonly StreamMode[] = ["values", "updates"];

/** Everything a run needs, fixed when it starts (the assistant version is read once). */
export interface RunPlan {
  readonly runId: string;
  readonly graph: Graph;
  /** The active version's context, with the run's own `context` laid over it. */
  readonly context: Record<string, unknown>;
  /** The thread's values before the run. */
  readonly values: ThreadValues;
  readonly input: unknown;
  readonly streamModes: readonly StreamMode[];
}

/** How a run ended, and the thread values to keep. */
export interface RunOutcome {
  readonly status: "success" | "error";
  readonly values: ThreadValues;
  /** The `error` event's data when the run failed. */
  readonly error?: { readonly error: string; readonly message: string };
}

/** The side effects a run needs: writing events, pacing steps, naming input messages. */
export interface RunHooks {
  emit(event: ServerSentEvent): void;
  /** Awaited before each node step (AGENT_SERVER_STEP_DELAY_MS). */
  pause(): Promise<void>;
  newId(): string;
}

/**
 * Runs a graph the way the real server streams it: `metadata` first, then (for `values`) the
 * state with the input applied, then per node step its `updates` event `{"<node>": {...}}` and
 * the new `values`. A failing step ends the run with one `error` event; the values written
 * before it (the input, earlier nodes) are kept, as LangGraph's checkpoints keep them.
 */
export async function executeRun(plan: RunPlan, hooks: RunHooks): Promise<RunOutcome> {
  const modes = new Set(plan.streamModes);
  hooks.emit({ event: "metadata", data: { run_id: plan.runId, attempt: 1 } });

  let values: ThreadValues = plan.values;
  try {
    const added = inputMessages(plan.input, hooks.newId);
    if (added.length > 0) values = { ...values, messages: addMessages(values.messages ?? [], added) };
  } catch (error) {
    return fail(values, error, hooks);
  }
  if (modes.has("values")) hooks.emit({ event: "values", data: values });

  for (const node of plan.graph.nodes) {
    await hooks.pause();
    let update;
    try {
      update = node.run({ values, context: plan.context, messageId: `run-${plan.runId}-${node.name}` });
    } catch (error) {
      return fail(values, error, hooks);
    }
    values = { ...values, messages: addMessages(values.messages ?? [], update.messages) };
    if (modes.has("updates")) hooks.emit({ event: "updates", data: { [node.name]: update } });
    if (modes.has("values")) hooks.emit({ event: "values", data: values });
  }
  return { status: "success", values };
}

function fail(values: ThreadValues, error: unknown, hooks: RunHooks): RunOutcome {
  const data = error instanceof Error ? { error: error.name, message: error.message } : { error: "Error", message: String(error) };
  hooks.emit({ event: "error", data });
  return { status: "error", values, error: data };
}
