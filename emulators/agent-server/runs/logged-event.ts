/**
 * Which streams show an event: `run` events are the run's own stream (and the thread's);
 * `thread` events only the thread stream (a run's end, `metadata {"status": "run_done"}`, and state
 * updates), as the real server's thread stream adds them.
 */
export type EventScope = "run" | "thread";

/** An event as saved: `seq` is its SSE id, increasing across the whole object. */
export interface LoggedEvent {
  readonly seq: number;
  readonly runId: string | null;
  readonly scope: EventScope;
  readonly event: string;
  readonly data: unknown;
}
