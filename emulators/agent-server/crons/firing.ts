import type { JsonObject } from "../../shared/pydantic/json.ts";

/** A cron that is due: what it runs (its payload) and where (its thread, or a new one each time). */
export interface DueCron {
  readonly cron_id: string;
  readonly thread_id: string | null;
  readonly on_run_completed: "delete" | "keep" | null;
  /** The request the cron was created with, its `assistant_id` resolved to a UUID. */
  readonly payload: JsonObject;
}

// The fields of the document's RunCreateStateful and RunCreateStateless: a cron's payload also
// holds its own fields (schedule, end_time, ...), which are not the run's.
const STATEFUL_RUN_FIELDS = [
  "assistant_id",
  "checkpoint",
  "input",
  "command",
  "metadata",
  "config",
  "context",
  "webhook",
  "interrupt_before",
  "interrupt_after",
  "stream_mode",
  "stream_subgraphs",
  "stream_resumable",
  "on_disconnect",
  "feedback_keys",
  "multitask_strategy",
  "if_not_exists",
  "after_seconds",
  "checkpoint_during",
  "durability",
];
const STATELESS_RUN_FIELDS = [
  "assistant_id",
  "input",
  "command",
  "metadata",
  "config",
  "context",
  "webhook",
  "interrupt_before",
  "interrupt_after",
  "stream_mode",
  "feedback_keys",
  "stream_subgraphs",
  "stream_resumable",
  "on_completion",
  "on_disconnect",
  "after_seconds",
  "checkpoint_during",
  "durability",
];

/**
 * The request that starts a cron's run, as a client would send it: a background run on the cron's
 * thread (POST /threads/{thread_id}/runs; queued behind the thread's other runs unless the cron
 * says otherwise), or a stateless one (POST /runs) whose thread is deleted after the run unless
 * the cron keeps it (`on_run_completed`).
 *
 * @example
 * runRequestFor({ cron_id, thread_id: null, on_run_completed: "keep", payload: { assistant_id, schedule: "@daily" } }, "https://agent-server.internal")
 * // POST https://agent-server.internal/runs {"assistant_id": ..., "on_completion": "keep"}
 */
export function runRequestFor(cron: DueCron, origin: string): Request {
  const fields = cron.thread_id === null ? STATELESS_RUN_FIELDS : STATEFUL_RUN_FIELDS;
  const run: JsonObject = Object.fromEntries(Object.entries(cron.payload).filter(([key]) => fields.includes(key)));
  if (cron.thread_id === null) run.on_completion = cron.on_run_completed ?? "delete";
  else run.multitask_strategy ??= "enqueue";
  const path = cron.thread_id === null ? "/runs" : `/threads/${cron.thread_id}/runs`;
  return new Request(`${origin}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(run) });
}

/** How firing one cron went: the run it created, or the answer that refused it. */
export interface FiringOutcome {
  readonly cron_id: string;
  readonly status: number;
  readonly run_id?: string;
  readonly detail?: unknown;
}

/**
 * Starts the run of each due cron through the emulator's own API (`send`), one after another, and
 * says how each went. A refused or failed run does not stop the others: like the real scheduler,
 * it is logged and the cron waits for its next time.
 */
export async function fireCrons(due: readonly DueCron[], send: (request: Request) => Promise<Response>, origin: string): Promise<FiringOutcome[]> {
  const outcomes: FiringOutcome[] = [];
  for (const cron of due) {
    let outcome: FiringOutcome;
    try {
      const response = await send(runRequestFor(cron, origin));
      const body = (await response.json().catch(() => null)) as { run_id?: unknown; detail?: unknown } | null;
      outcome =
        response.ok && typeof body?.run_id === "string"
          ? { cron_id: cron.cron_id, status: response.status, run_id: body.run_id }
          : { cron_id: cron.cron_id, status: response.status, detail: body?.detail ?? body };
    } catch (error) {
      outcome = { cron_id: cron.cron_id, status: 500, detail: String(error) };
    }
    console.log(JSON.stringify({ event: outcome.run_id ? "agent_server_cron_fired" : "agent_server_cron_refused", ...outcome }));
    outcomes.push(outcome);
  }
  return outcomes;
}
