import { NodeInterrupt, type Graph, type GraphNode, type ThreadValues } from "../graphs/graph.ts";
import { holdsBefore } from "../graphs/hold.ts";
import { addMessages, inputMessages } from "../graphs/messages.ts";
import type { JsonObject, JsonValue } from "../../shared/pydantic/json.ts";
import type { ServerSentEvent } from "../../shared/sse.ts";
import { ModeEvents, type TaskRef } from "./mode-events.ts";

/** Every `stream_mode` the API accepts (RunCreateStateful). */
export const STREAM_MODES = ["values", "messages", "messages-tuple", "tasks", "checkpoints", "updates", "events", "debug", "custom"] as const;
export type StreamMode = (typeof STREAM_MODES)[number];

/** The modes the emulator produces events for; the others are accepted and stay silent. */
export const EMITTED_MODES: readonly StreamMode[] = ["values", "messages", "messages-tuple", "updates", "tasks", "checkpoints", "events"];

/** The pseudo-node that applies a run's input, as LangGraph names it in `next` and `writes`. */
export const START = "__start__";

/** The key LangGraph streams a run's pending interrupts under (in `updates` and `values`). */
export const INTERRUPT = "__interrupt__";

/** A pending interrupt, as the API shows it (`tasks[].interrupts`, the `__interrupt__` key). */
export interface Interrupt {
  readonly value: JsonObject;
  readonly id: string;
}

/** Nodes a run stops before or after (`interrupt_before`, `interrupt_after`): named ones, or `*` for all. */
export type Breakpoints = "*" | readonly string[];

/** What `command` asks of a run that goes on from the thread's checkpoint instead of from input. */
export interface RunCommand {
  /** Messages to add (add_messages) before the next node runs: `command.update`. */
  readonly update?: unknown;
  /** `command.resume`, handed to `node` when its `interrupt` is called again. */
  readonly resume?: { readonly node: string; readonly value: JsonValue };
}

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
  /** `command`: an update to apply and a resume value for the node that paused (only with `resume`). */
  readonly command?: RunCommand;
  readonly interruptBefore?: Breakpoints;
  readonly interruptAfter?: Breakpoints;
  /** The checkpoint a run that goes on (`resume`) starts from: its step and tasks. */
  readonly from?: SavedStep;
  /** The run's metadata as its checkpoints carry it (the `tasks` and `events` modes show it too). */
  readonly metadata?: JsonObject;
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

/** What a saved checkpoint answers: its step and its tasks' ids. */
export interface SavedStep {
  readonly step: number;
  readonly tasks: readonly { readonly id: string; readonly name: string }[];
}

/** The `error` event's data. */
export interface RunError {
  readonly error: string;
  readonly message: string;
}

/** How a run ended, and the values it got to. */
export interface RunOutcome {
  /**
   * `cancelled`: stopped by a cancel (its signal); the engine decides what that means.
   * `interrupted`: paused at a breakpoint or a node's `interrupt`, to be resumed with a command.
   */
  readonly status: "success" | "error" | "cancelled" | "interrupted";
  readonly values: ThreadValues;
  /** The interrupts it paused with (none at a breakpoint). */
  readonly interrupts?: readonly Interrupt[];
  /** The `error` event's data when the run failed. */
  readonly error?: RunError;
}

/** The side effects a run needs: writing events and checkpoints, pacing steps, naming input messages. */
export interface RunHooks {
  emit(event: ServerSentEvent): void;
  /** Awaited before each node step (AGENT_SERVER_STEP_DELAY_MS). */
  pause(): Promise<void>;
  newId(): string;
  /**
   * Saves a checkpoint; called synchronously right after the step it records. Answers its step
   * number and the ids of its tasks (the nodes next), which the `checkpoints` and `tasks` modes show.
   */
  checkpoint?(step: StepRecord): SavedStep | void;
  /** A node (or `__start__`, for input the graph cannot take) failed; its task keeps the error. */
  failed?(node: string, error: RunError): void;
  /** A node paused (`interrupt`): its task in the last checkpoint keeps the interrupts, pending. */
  interrupted?(node: string, interrupts: readonly Interrupt[]): void;
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
 *
 * Interrupts, as LangGraph's loop makes them: a breakpoint (`interrupt_before` a node, or
 * `interrupt_after` it once its step is saved) ends the run with `updates`
 * `{"__interrupt__": []}`; a node that calls `interrupt(value)` ends it with `updates`
 * `{"__interrupt__": [{value, id}]}` and `values` (the state with that key added), writing no
 * update: the last checkpoint names the node next, with the interrupt on its task. A run that
 * goes on from a checkpoint (`resume.next`) applies `command.update` first and does not stop again
 * before the node it starts with.
 */
export async function executeRun(plan: RunPlan, hooks: RunHooks): Promise<RunOutcome> {
  const modes = new Set(plan.streamModes);
  const nodes = plan.graph.nodes;
  const cancelled = () => hooks.signal?.aborted === true;
  hooks.emit({ event: "metadata", data: { run_id: plan.runId, attempt: plan.attempt ?? 1 } });
  const inside = new ModeEvents({ modes, emit: hooks.emit, runId: plan.runId, metadata: plan.metadata ?? {}, newId: hooks.newId });
  // The last checkpoint's step and tasks (counted here too when no hook saves them).
  let saved: SavedStep = plan.from ?? { step: -2, tasks: [] };
  const checkpoint = (record: StepRecord) => {
    saved = hooks.checkpoint?.(record) || { step: saved.step + 1, tasks: record.next.map((name) => ({ id: hooks.newId(), name })) };
    inside.checkpoint({ ...record, step: saved.step });
  };
  const taskOf = (node: GraphNode<Record<string, unknown>>): TaskRef => ({
    id: saved.tasks.find((t) => t.name === node.name)?.id ?? hooks.newId(),
    node,
    step: saved.step + 1,
  });
  inside.graphStarted(plan.input);

  let values: ThreadValues = plan.values;
  let first = 0;
  const resumeAt = plan.resume?.next[0];
  if (plan.resume === undefined || resumeAt === START) {
    // A fresh start saves the input first (a restart after that checkpoint only re-applies it).
    if (plan.resume === undefined) checkpoint({ source: "input", values, next: [START], writes: { [START]: (plan.input ?? null) as JsonObject } });
    try {
      const added = inputMessages(plan.input, hooks.newId);
      if (added.length > 0) values = { ...values, messages: addMessages(values.messages ?? [], added) };
    } catch (error) {
      return fail(START, values, error, hooks);
    }
    checkpoint({ source: "loop", values, next: nodes.slice(0, 1).map((n) => n.name), writes: null });
  } else {
    first = nodes.findIndex((n) => n.name === resumeAt);
    if (first < 0) first = nodes.length;
  }
  if (plan.command?.update !== undefined && plan.command.update !== null) {
    try {
      values = { ...values, messages: addMessages(values.messages ?? [], inputMessages(plan.command.update, hooks.newId)) };
    } catch (error) {
      return fail(START, values, error, hooks);
    }
    // Nothing left to run: the update is still the thread's new state.
    if (first >= nodes.length) checkpoint({ source: "loop", values, next: [], writes: { [START]: plan.command.update as JsonObject } });
  }
  if (modes.has("values")) hooks.emit({ event: "values", data: values });
  inside.valuesReached(values);

  let resume = plan.command?.resume;
  for (let index = first; index < nodes.length; index++) {
    const node = nodes[index]!;
    await hooks.pause();
    if (cancelled()) return { status: "cancelled", values };
    // A run going on from a checkpoint starts with the node it stopped before, not at it again.
    const resuming = plan.resume !== undefined && index === first;
    if (!resuming && stopsAt(plan.interruptBefore, node.name)) return breakpoint(values, modes, hooks);
    if (hooks.hold && holdsBefore(plan.graph, index, values)) {
      await hooks.hold();
      if (cancelled()) return { status: "cancelled", values };
    }
    const task = taskOf(node);
    inside.nodeStarted(task, values);
    let update;
    try {
      const answer = resume?.node === node.name ? resume : undefined;
      resume = undefined;
      update = node.run({
        values,
        context: plan.context,
        messageId: `run-${plan.runId}-${node.name}`,
        interrupt: (value) => {
          if (answer) return answer.value;
          throw new NodeInterrupt(value);
        },
      });
    } catch (error) {
      if (error instanceof NodeInterrupt) {
        const outcome = paused(node.name, error.value, values, modes, hooks);
        inside.nodePaused(task, outcome.interrupts as unknown as JsonObject[]);
        return outcome;
      }
      return fail(node.name, values, error, hooks, (data) => inside.nodeFailed(task, data as unknown as JsonObject));
    }
    inside.nodeEnded(task, values, update);
    values = { ...values, messages: addMessages(values.messages ?? [], update.messages) };
    checkpoint({
      source: "loop",
      values,
      next: nodes.slice(index + 1, index + 2).map((n) => n.name),
      writes: { [node.name]: update as unknown as JsonObject },
    });
    if (modes.has("updates")) hooks.emit({ event: "updates", data: { [node.name]: update } });
    if (modes.has("values")) hooks.emit({ event: "values", data: values });
    inside.valuesReached(values);
    if (stopsAt(plan.interruptAfter, node.name)) return breakpoint(values, modes, hooks);
  }
  inside.graphEnded(values);
  return { status: "success", values };
}

const stopsAt = (breakpoints: Breakpoints | undefined, node: string) => breakpoints === "*" || (breakpoints?.includes(node) ?? false);

/** A breakpoint: LangGraph streams an empty interrupt list under `updates` only. */
function breakpoint(values: ThreadValues, modes: ReadonlySet<StreamMode>, hooks: RunHooks): RunOutcome {
  if (modes.has("updates")) hooks.emit({ event: "updates", data: { [INTERRUPT]: [] } });
  return { status: "interrupted", values, interrupts: [] };
}

/** A node called `interrupt`: the interrupt is saved on its task and streamed under both modes. */
function paused(node: string, value: JsonObject, values: ThreadValues, modes: ReadonlySet<StreamMode>, hooks: RunHooks): RunOutcome {
  // LangGraph's interrupt ids are 32 hex digits (an xxh3-128 digest); these are random ones.
  const interrupts: Interrupt[] = [{ value, id: hooks.newId().replaceAll("-", "") }];
  hooks.interrupted?.(node, interrupts);
  if (modes.has("updates")) hooks.emit({ event: "updates", data: { [INTERRUPT]: interrupts } });
  if (modes.has("values")) hooks.emit({ event: "values", data: { ...values, [INTERRUPT]: interrupts } });
  return { status: "interrupted", values, interrupts };
}

function fail(node: string, values: ThreadValues, error: unknown, hooks: RunHooks, before?: (data: RunError) => void): RunOutcome {
  const data = error instanceof Error ? { error: error.name, message: error.message } : { error: "Error", message: String(error) };
  hooks.failed?.(node, data);
  before?.(data);
  hooks.emit({ event: "error", data });
  return { status: "error", values, error: data };
}
