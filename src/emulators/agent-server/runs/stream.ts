import { streamEvents } from "../../shared/sse.ts";
import type { ThreadValues } from "../graphs/graph.ts";
import { executeRun, type RunPlan } from "./execute.ts";

/** What streaming a started run needs besides its plan. */
export interface StreamOptions {
  readonly plan: RunPlan;
  readonly threadId: string;
  /** Pause before each node step, in ms. */
  readonly delayMs: number;
  /** Saves the outcome in the state object (the thread's values and status). */
  readonly finish: (status: "success" | "error", values: ThreadValues) => Promise<unknown>;
  /** Keeps the Worker alive until the run is saved, even if the client hangs up. */
  readonly waitUntil: (work: Promise<unknown>) => void;
}

/**
 * The run's response: `text/event-stream`, each event written the moment it happens, with
 * `Content-Location: /threads/{thread_id}/runs/{run_id}` and no `Location` (the official client
 * would take that as a path to reconnect to). The outcome is saved before the stream closes, so a
 * client that reads the thread after the stream ends sees the run's values.
 */
export function streamRun(options: StreamOptions): Response {
  const { plan, delayMs } = options;
  return streamEvents(
    async (sink) => {
      try {
        const outcome = await executeRun(plan, { emit: (event) => sink.send(event), pause: () => sleep(delayMs), newId: () => crypto.randomUUID() });
        await options.finish(outcome.status, outcome.values);
      } catch (error) {
        // Not a graph failure (those are outcomes) but the emulator's own: say so, free the thread.
        console.log(JSON.stringify({ event: "agent_server_run_failed", run_id: plan.runId, error: String(error) }));
        sink.send({ event: "error", data: { error: "InternalError", message: "The emulator failed while running this run; the thread is left as it was." } });
        await options.finish("error", plan.values).catch(() => {});
      }
    },
    { headers: { "content-location": `/threads/${options.threadId}/runs/${plan.runId}` }, waitUntil: options.waitUntil },
  );
}

const sleep = (ms: number): Promise<void> => (ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : Promise.resolve());
