// Helpers for the run-engine tests: creating runs, reading their streams event by event, and
// waiting for what the engine announces (a stream event, a join's answer): never for a time, and
// never by asking again (the test timeout is the only bound).
import { parseEvents } from "../../../emulators/shared/sse.ts";
import { HOLD_MARKER } from "../../../emulators/agent-server/graphs/hold.ts";
import { runInDurableObject } from "cloudflare:test";
import { agentServer, send, type JsonAnswer, type WireEvent } from "./support.ts";
import { stateObject } from "./clock.ts";
import { say } from "../../support/run-input.ts";

export { say };

/** A run input that holds the run before its graph's last node until it is cancelled. */
export const held = (content: string) => say(`${content} ${HOLD_MARKER}`);

/** POST /threads/{thread_id}/runs (a background run), expecting 200. */
export async function createRun(threadId: string, body: Record<string, unknown>): Promise<any> {
  const res = await agentServer("POST", `/threads/${threadId}/runs`, { body });
  if (res.status !== 200) throw new Error(`create run: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

export const getRun = (threadId: string, runId: string): Promise<JsonAnswer> => agentServer("GET", `/threads/${threadId}/runs/${runId}`);

/** The run's outcome, as GET .../join answers it once the run is over. */
export const join = (threadId: string, runId: string) => agentServer("GET", `/threads/${threadId}/runs/${runId}/join`);

/**
 * Waits for the run's event that matches (its stream from the first event, GET .../stream), then
 * hangs up (a join stream does not cancel the run). The engine saves a step's checkpoint before it
 * streams the step, so what the event shows is what the thread's state holds.
 */
export async function untilEvent(threadId: string, runId: string, match: (event: WireEvent) => boolean): Promise<WireEvent> {
  const { events } = await openEvents("GET", `/threads/${threadId}/runs/${runId}/stream`);
  try {
    return await events.until(match);
  } finally {
    await events.drop();
  }
}

/** Waits until the run has started: its first event (metadata) is streamed as it leaves pending. */
export const untilRunning = (threadId: string, runId: string) => untilEvent(threadId, runId, (e) => e.event === "metadata");

/** Waits until the run's `values` show the message (a held run's last step before it holds). */
export const untilValuesShow = (threadId: string, runId: string, content: string) =>
  untilEvent(threadId, runId, (e) => e.event === "values" && contents(e.data).includes(content));

/** Waits until the run is over (join answers then), and answers GET of it: its last status, or 404 once it was rolled back. */
export async function untilOver(threadId: string, runId: string): Promise<JsonAnswer> {
  await join(threadId, runId);
  return getRun(threadId, runId);
}

/** Reads a live event stream one event at a time. */
export class EventReader {
  readonly #reader: ReadableStreamDefaultReader<string>;
  #buffer = "";
  readonly #queued: WireEvent[] = [];
  readonly seen: WireEvent[] = [];

  constructor(res: Response) {
    this.#reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  }

  /** The next event, or undefined once the stream has ended. */
  async next(): Promise<WireEvent | undefined> {
    while (this.#queued.length === 0) {
      const { done, value } = await this.#reader.read();
      if (done) return undefined;
      const { events, rest } = parseEvents(this.#buffer + value);
      this.#buffer = rest;
      this.#queued.push(...(events as WireEvent[]));
    }
    const event = this.#queued.shift()!;
    this.seen.push(event);
    return event;
  }

  /** Reads until an event matches (and returns it). */
  async until(match: (event: WireEvent) => boolean): Promise<WireEvent> {
    for (;;) {
      const event = await this.next();
      if (!event) throw new Error(`the stream ended before the event looked for; saw ${JSON.stringify(this.seen.map((e) => e.event))}`);
      if (match(event)) return event;
    }
  }

  /** Everything left, until the stream ends. */
  async rest(): Promise<WireEvent[]> {
    const events: WireEvent[] = [];
    for (let event = await this.next(); event; event = await this.next()) events.push(event);
    return events;
  }

  /** Hangs up, as a client whose connection dropped. */
  async drop(): Promise<void> {
    await this.#reader.cancel();
  }
}

/** Opens a stream (GET or POST) and reads it event by event. */
export async function openEvents(method: string, path: string, options: { body?: unknown; headers?: Record<string, string> } = {}) {
  const res = await send(method, path, options);
  if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return { res, events: new EventReader(res) };
}

/** The contents of a thread's messages (values.messages). */
export const contents = (values: any): string[] => (values?.messages ?? []).map((m: any) => m.content);

/**
 * Restarts the state object as a deploy or a crash does: its instance ends at once, with the runs
 * it was stepping, and the next request starts it again from storage. (A graceful eviction waits
 * for those runs' requests to drain first, until its timeout.)
 */
export async function restartStateObject(): Promise<void> {
  // The abort rejects the call it is made in: that rejection is the restart.
  await runInDurableObject(stateObject(), (_instance, state: DurableObjectState) => state.abort("restarted by the test")).catch(() => undefined);
}
