import type { Graph, ThreadValues } from "../graphs/graph.ts";
import { holdsBefore } from "../graphs/hold.ts";
import { addMessages, inputMessages } from "../graphs/messages.ts";
import type { JsonObject } from "../../shared/pydantic/json.ts";
import type { ServerSentEvent } from "../../shared/sse.ts";

/** Every `stream_mode` the API accepts (RunCreateStateful). */
export const STREAM_MODES = ["values", "messages", "messages-tuple", "tasks", "checkpoints", "updates", "events", "debug", "custom"] as const;
export type StreamMode = (typeof STREAM_MODES)[number];

/** The modes the emulator produces events for; the others are accepted and stay silent. */
export const EMITTED_MODES: readonly StreamMode[] = ["values", "updates"];

/** The pseudo-node that applies a run's input, as LangGraph names it in `next` and `writes`. */
export const START = "__start__";

/** Everything a run needs, fixed when it starts (the assistant version is read once). */
export interface RunPlan {
  readonly runId: string;
  readonly graph: Graph;
  /** The active version's context, with the run's own `context` laid over it. */
  readonly context: Record<string, unknown>;
  /** The thread's values before the run (its latest checkpoint's). */
  readonly values: ThreadValues;
  readonly input: unknown;
  readonly streamModes: readonly StreamMode[];
  /** Which start of the run this is: 2 and up after the object restarted mid-run. */
  readonly attempt?: number;
  /**
   * The nodes still to run when the run goes on from a checkpoint instead of from its input: after
   * a restart, or a run without input on a thread whose last run stopped before its end.
   */
  readonly resume?: { readonly next: readonly string[] };
}

/** A checkpoint as the run reaches it: after its input (`input`, then `loop`) and after each node. */
export interface StepRecord {
  readonly source: "input" | "loop";
  readonly values: ThreadValues;
  /** The nodes that run next; empty once the graph is done. */
  readonly next: readonly string[];
  /** What the step wrote: `{"__start__": input}`, `{"<node>": update}`, or null. */
  readonly writes: JsonObject | null;
}

/** The `error` event's data. */
export interface RunError {
  readonly error: string;
  readonly message: string;
}

/** How a run ended, and the values it got to. */
export interface RunOutcome {
  /** `cancelled`: stopped by a cancel (its signal); the engine decides what that means. */
  readonly status: "success" | "error" | "cancelled";
  readonly values: ThreadValues;
  /** The `error` event's data when the run failed. */
  readonly error?: RunError;
}

/** The side effects a run needs: writing events and checkpoints, pacing steps, naming input messages. */
export interface RunHooks {
  emit(event: ServerSentEvent): void;
  /** Awaited before each node step (AGENT_SERVER_STEP_DELAY_MS). */
  pause(): Promise<void>;
  newId(): string;
  /** Saves a checkpoint; called synchronously right after the step it records. */
  checkpoint?(step: StepRecord): void;
  /** A node (or `__start__`, for input the graph cannot take) failed; its task keeps the error. */
  failed?(node: string, error: RunError): void;
  /** Waits while the run holds (the hold marker, graphs/hold.ts); ends when the run is cancelled. */
  hold?(): Promise<void>;
  /** Aborted when the run is cancelled: it stops before its next step, writing nothing more. */
  readonly signal?: AbortSignal;
}

/**
 * Runs a graph the way the real server streams it: `metadata` first, then (for `values`) the
 * state with the input applied, then per node step its `updates` event `{"<node>": {...}}` and
 * the new `values`, saving a checkpoint after the input and after every step. A failing step ends
 * the run with one `error` event; the checkpoints before it (the input, earlier nodes) are kept,
 * as LangGraph keeps them. A cancel (the signal) stops it between steps, silently.
 */
export async function executeRun(plan: RunPlan, hooks: RunHooks): Promise<RunOutcome> {
  const modes = new Set(plan.streamModes);
  const nodes = plan.graph.nodes;
  const cancelled = () => hooks.signal?.aborted === true;
  hooks.emit({ event: "metadata", data: { run_id: plan.runId, attempt: plan.attempt ?? 1 } });

  let values: ThreadValues = plan.values;
  let first = 0;
  const resumeAt = plan.resume?.next[0];
  if (resumeAt === undefined || resumeAt === START) {
    // A fresh start saves the input first (a restart after that checkpoint only re-applies it).
    if (resumeAt === undefined) hooks.checkpoint?.({ source: "input", values, next: [START], writes: { [START]: (plan.input ?? null) as JsonObject } });
    try {
      const added = inputMessages(plan.input, hooks.newId);
      if (added.length > 0) values = { ...values, messages: addMessages(values.messages ?? [], added) };
    } catch (error) {
      return fail(START, values, error, hooks);
    }
    hooks.checkpoint?.({ source: "loop", values, next: nodes.slice(0, 1).map((n) => n.name), writes: null });
  } else {
    first = Math.max(0, nodes.findIndex((n) => n.name === resumeAt));
  }
  if (modes.has("values")) hooks.emit({ event: "values", data: values });

  for (let index = first; index < nodes.length; index++) {
    const node = nodes[index]!;
    await hooks.pause();
    if (cancelled()) return { status: "cancelled", values };
    if (hooks.hold && holdsBefore(plan.graph, index, values)) {
      await hooks.hold();
      if (cancelled()) return { status: "cancelled", values };
    }
    let update;
    try {
      update = node.run({ values, context: plan.context, messageId: `run-${plan.runId}-${node.name}` });
    } catch (error) {
      return fail(node.name, values, error, hooks);
    }
    values = { ...values, messages: addMessages(values.messages ?? [], update.messages) };
    hooks.checkpoint?.({ source: "loop", values, next: nodes.slice(index + 1, index + 2).map((n) => n.name), writes: { [node.name]: update as unknown as JsonObject } });
    if (modes.has("updates")) hooks.emit({ event: "updates", data: { [node.name]: update } });
    if (modes.has("values")) hooks.emit({ event: "values", data: values });
  }
  return { status: "success", values };
}

function fail(node: string, values: ThreadValues, error: unknown, hooks: RunHooks): RunOutcome {
  const data = error instanceof Error ? { error: error.name, message: error.message } : { error: "Error", message: String(error) };
  hooks.failed?.(node, data);
  hooks.emit({ event: "error", data });
  return { status: "error", values, error: data };
}
