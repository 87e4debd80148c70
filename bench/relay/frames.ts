// Pure: the frames the relay bench sends, shaped as the agent server's protocol v2 sends them
// (emulators/agent-server/protocols/v2/envelope.ts): a command `{id, method, params}`, its answer
// `{type: "success", id, result, meta}`, an event `{type: "event", event_id, seq, method, params}`.
// Shared by the client (Node) and the upstream Worker (fixtures/upstream.ts), so both agree on
// what a frame is without restating it.

/** The socket path every target is asked for: the agent server's event stream, below its local mount. */
export const SOCKET_PATH = "/agent-server/threads/3f0f8a52-7a3c-4c4e-9a55-0d6c1b6f2e10/stream/events";

/** Query parameters of the socket URL the upstream reads: how many event frames a subscribe asks for, and their size. */
export const EVENTS_PARAM = "bench_events";
export const EVENT_BYTES_PARAM = "bench_event_bytes";

/** The small command, as the brief's example: a read with no parameters. */
export function smallCommand(id: number): string {
  return JSON.stringify({ id, method: "agent.getTree", params: {} });
}

/**
 * A `run.start` whose input message pads the frame to `bytes` (UTF-8, ASCII only), or to its
 * smallest length when `bytes` is below that.
 */
export function paddedCommand(id: number, bytes: number): string {
  const frame = (content: string) =>
    JSON.stringify({ id, method: "run.start", params: { assistant_id: "agent", input: { messages: [{ role: "user", content }] } } });
  const bare = frame("").length;
  return frame("x".repeat(Math.max(0, bytes - bare)));
}

/** The command a socket sends to be sent the event frames (the upstream reads the count from the URL). */
export function subscribeCommand(id: number): string {
  return JSON.stringify({ id, method: "subscription.subscribe", params: { channels: ["messages"] } });
}

/** The upstream's answer to any command. */
export function successFrame(id: number): string {
  return JSON.stringify({ type: "success", id, result: {}, meta: { applied_through_seq: 0 } });
}

/** An event of `seq`, its data padded so the frame is `bytes` long (or its smallest length). */
export function eventFrame(seq: number, bytes: number): string {
  const frame = (text: string) =>
    JSON.stringify({ type: "event", event_id: String(seq), seq, method: "messages", params: { namespace: [], timestamp: 1_760_000_000_000, data: { text } } });
  const bare = frame("").length;
  return frame("x".repeat(Math.max(0, bytes - bare)));
}

/** The id of an answer frame, or undefined for any other frame (an event, or unreadable text). */
export function answeredId(text: string): number | undefined {
  try {
    const frame = JSON.parse(text) as { type?: unknown; id?: unknown };
    return (frame.type === "success" || frame.type === "error") && typeof frame.id === "number" ? frame.id : undefined;
  } catch {
    return undefined;
  }
}
