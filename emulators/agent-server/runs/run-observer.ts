import type { ServerSentEvent } from "../../shared/sse.ts";
import type { Interrupt, RunError } from "./execute.ts";
import type { Run, RunStatus } from "./schema.ts";

/**
 * Who follows a run as the engine drives it, besides its saved event log: protocol v2's event
 * buffer (protocols/v2/run-events.ts). Called synchronously, in order, inside the state object.
 */
export interface RunObserver {
  /** A start of the run (again after a restart, with `attempt` 2 and up), before its first event. */
  started(run: Run, graphId: string, attempt: number): void;
  /** An event the run streamed (`values`, `updates`, `error`, `metadata`). */
  emitted(run: Run, event: ServerSentEvent): void;
  /**
   * The run is over: its final status (undefined when it was rolled back or its thread deleted),
   * the interrupts it paused on, and its error.
   */
  finished(
    run: Run,
    status: RunStatus | undefined,
    ending: { readonly interrupts?: readonly Interrupt[] | undefined; readonly error?: RunError | undefined },
  ): void;
}
