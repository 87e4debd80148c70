import { streamEvents } from "../../../shared/sse.ts";
import { EventQueue } from "../../runs/event-queue.ts";
import type { ProtocolEvent } from "./envelope.ts";
import type { ProtocolEventBuffer } from "./event-buffer.ts";
import { matches, type EventFilter } from "./filter.ts";

/**
 * How often a protocol v2 event stream writes `: heartbeat`. The 1.15 client learns the cadence
 * from two heartbeats and reconnects after three times it (at least 6 s) of silence, so a
 * half-open connection is noticed within seconds (docs/agent-server.md, "Protocol v2").
 */
export const PROTOCOL_HEARTBEAT_MS = 5_000;

export interface ProtocolStreamRequest {
  readonly threadId: string;
  readonly filter: EventFilter;
  /** Replay buffered events after this seq; without it, the thread's latest run from its start. */
  readonly since: number | undefined;
}

/**
 * `POST /threads/{thread_id}/stream/events`: the thread's buffered events the filter passes, then
 * its live ones, each a frame with `event:` = method, `id:` = seq and the event as `data:`, for as
 * long as the client stays. Heartbeats wait on the state object's clock (a test moves it). When
 * the client goes, its listener and its heartbeat's sleep go too: nothing stays behind.
 */
export function protocolEventStream(
  buffer: ProtocolEventBuffer,
  { threadId, filter, since }: ProtocolStreamRequest,
  options: { readonly sleep: (ms: number, signal: AbortSignal) => Promise<void>; readonly waitUntil: (work: Promise<unknown>) => void },
): Response {
  const queue = new EventQueue<ProtocolEvent>();
  // One synchronous step: what is buffered so far, then listening for the rest.
  const replay = buffer.replay(threadId, since);
  const stop = buffer.listen(threadId, queue);
  const leave = () => {
    stop();
    queue.end();
  };
  return streamEvents(
    async (sink) => {
      const send = (event: ProtocolEvent) => {
        if (matches(filter, event.method, event.params.namespace, event.params.data)) sink.send({ event: event.method, data: event, id: String(event.seq) });
      };
      try {
        for (const event of replay) send(event);
        for await (const event of queue.drain()) send(event);
      } finally {
        leave();
      }
    },
    { waitUntil: options.waitUntil, onCancel: leave, heartbeatMs: PROTOCOL_HEARTBEAT_MS, sleep: options.sleep },
  );
}
