import { streamEvents } from "../../shared/sse.ts";
import type { EventQueue } from "./event-queue.ts";
import type { LoggedEvent } from "./logged-event.ts";

/** What a stream of saved events sends: a replay, then (while its source goes on) what comes live. */
export interface LoggedEventStream {
  /** Events already saved that the reader has not seen. */
  readonly replay: readonly LoggedEvent[];
  /** Events to come, or none when the source is over (the stream ends after the replay). */
  readonly live?: { readonly queue: EventQueue<LoggedEvent>; readonly stop: () => void } | undefined;
  /** Writes `id: <seq>` lines, so a client can reconnect with Last-Event-ID. */
  readonly withIds: boolean;
  /** Which events this reader asked for (stream modes); all when absent. */
  readonly accept?: (event: LoggedEvent) => boolean;
  readonly waitUntil: (work: Promise<unknown>) => void;
}

/**
 * A `text/event-stream` response of saved run events, written with the one SSE writer
 * (shared/sse.ts). Created inside the state object, where the events are, and handed to the
 * Worker over RPC as it is.
 */
export function loggedEventStream(options: LoggedEventStream): Response {
  const { live, accept = () => true } = options;
  return streamEvents(
    async (sink) => {
      const send = (e: LoggedEvent) => {
        if (accept(e)) sink.send({ event: e.event, data: e.data, id: options.withIds ? String(e.seq) : undefined });
      };
      try {
        for (const event of options.replay) send(event);
        if (live) for await (const event of live.queue.drain()) send(event);
      } finally {
        live?.stop();
      }
    },
    // A reader that went away stops the listening (a thread stream would otherwise go on for as
    // long as the thread lives).
    { waitUntil: options.waitUntil, onCancel: () => live?.stop() },
  );
}
