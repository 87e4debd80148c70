import type { ServerSentEvent } from "../../../shared/sse.ts";
import { INTERRUPT, type Interrupt, type RunError } from "../../runs/execute.ts";
import type { RunObserver } from "../../runs/run-observer.ts";
import type { Run, RunStatus } from "../../runs/schema.ts";
import { isObject } from "./envelope.ts";

/** Where the events go: the thread's event buffer (protocols/v2/event-buffer.ts). */
export interface ProtocolEventSink {
  append(threadId: string, runId: string | null, method: string, data: unknown, timestamp: number): unknown;
}

/** The root's lifecycle at a run's end, by the run's final status (AgentStatus). */
const LIFECYCLE_OF: Partial<Record<RunStatus, "completed" | "failed" | "interrupted">> = { success: "completed", error: "failed", interrupted: "interrupted" };

/**
 * A run as protocol v2 shows it, written into the thread's event buffer as the engine drives it:
 * `lifecycle` `started` (with `input.answered` first when the run resumes interrupts), `values`
 * after the input and after each step, `updates` `{node, values}` per step, then at its end
 * `input.requested` per interrupt it paused on and `lifecycle` `completed`, `failed` (with the
 * error) or `interrupted`. Every event is in the root namespace: the bundled graphs have no
 * subgraphs. `__interrupt__` stays out of `values`: the interrupts travel as `input.requested`.
 */
export class ProtocolRunEvents implements RunObserver {
  readonly #buffer: ProtocolEventSink;
  /** The interrupt ids the thread's latest checkpoint holds pending. */
  readonly #pending: (threadId: string) => readonly string[];
  readonly #now: () => number;

  constructor(buffer: ProtocolEventSink, pending: (threadId: string) => readonly string[], now: () => number) {
    this.#buffer = buffer;
    this.#pending = pending;
    this.#now = now;
  }

  started(run: Run, graphId: string, attempt: number): void {
    // A run with a resume value answers the interrupts its thread's latest checkpoint holds.
    const resumes = attempt === 1 && isObject(run.kwargs.command) && run.kwargs.command.resume !== undefined;
    const answered = resumes ? this.#pending(run.thread_id) : [];
    if (answered.length > 0) this.#append(run, "input.answered", { interrupt_ids: answered });
    this.#append(run, "lifecycle", { event: "started", graph_name: graphId, run_id: run.run_id, attempt });
  }

  emitted(run: Run, { event, data }: ServerSentEvent): void {
    if (event === "values" && isObject(data)) {
      const { [INTERRUPT]: _interrupts, ...values } = data;
      this.#append(run, "values", values);
    } else if (event === "updates" && isObject(data)) {
      for (const [node, update] of Object.entries(data)) if (node !== INTERRUPT) this.#append(run, "updates", { node, values: update });
    }
    // `metadata` and `error` are said by the lifecycle events.
  }

  finished(
    run: Run,
    status: RunStatus | undefined,
    ending: { readonly interrupts?: readonly Interrupt[] | undefined; readonly error?: RunError | undefined },
  ): void {
    if (status === "interrupted")
      for (const { id, value } of ending.interrupts ?? []) this.#append(run, "input.requested", { interrupt_id: id, payload: value });
    const lifecycle = status === undefined ? "failed" : (LIFECYCLE_OF[status] ?? "failed");
    const error = lifecycle === "failed" ? (ending.error ? `${ending.error.error}: ${ending.error.message}` : "The run was cancelled.") : undefined;
    this.#append(run, "lifecycle", { event: lifecycle, run_id: run.run_id, ...(error ? { error } : {}) });
  }

  #append(run: Run, method: string, data: Record<string, unknown>): void {
    this.#buffer.append(run.thread_id, run.run_id, method, data, this.#now());
  }
}
