import { exports } from "cloudflare:workers";
import { AGENT_SERVER_URL, agentServer, freshCaller, type JsonAnswer } from "./support.ts";
import { openEvents } from "./run-support.ts";

/** Sends one protocol v2 command over HTTP (`POST /threads/{thread_id}/commands`). */
export async function command(threadId: string, id: number, method: string, params: Record<string, unknown> = {}): Promise<JsonAnswer> {
  return agentServer("POST", `/threads/${threadId}/commands`, { body: { id, method, params } });
}

/** The result of a command that must succeed. */
export async function succeed(threadId: string, method: string, params: Record<string, unknown> = {}): Promise<any> {
  const res = await command(threadId, 1, method, params);
  if (res.status !== 200 || res.body.type !== "success") throw new Error(`${method}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.result;
}

/** Opens the thread's protocol event stream (SSE) and reads it event by event. */
export const openProtocolEvents = (threadId: string, body: Record<string, unknown>) => openEvents("POST", `/threads/${threadId}/stream/events`, { body });

/** The root lifecycle events that end a run. */
export const isTerminal = (e: { event: string; data: any }) =>
  e.event === "lifecycle" && ["completed", "failed", "interrupted"].includes(e.data.params.data.event);

/**
 * A protocol v2 socket on the thread, opened as a Node client opens it (an upgrade GET with its
 * key): what arrives is kept in order, and `until` waits for a message. The upgrade is not held to
 * the HTTP contract (a 101 has no documented body), so it goes to the Worker's fetch directly.
 */
export async function openSocket(
  threadId: string,
  baseUrl: string = AGENT_SERVER_URL,
  fetcher: (request: Request) => Promise<Response> = (r) => exports.default.fetch(r),
) {
  const res = await fetcher(new Request(`${baseUrl}/threads/${threadId}/stream/events`, { headers: { upgrade: "websocket", ...freshCaller() } }));
  if (res.status !== 101 || !res.webSocket) throw new Error(`upgrade: ${res.status} ${await res.text()}`);
  const socket = res.webSocket;
  const received: any[] = [];
  const waiters: Array<() => void> = [];
  let closed: { code: number; reason: string } | undefined;
  const wake = () => waiters.splice(0).forEach((w) => w());
  socket.addEventListener("message", (e) => {
    received.push(JSON.parse(String(e.data)));
    wake();
  });
  socket.addEventListener("close", (e) => {
    closed = { code: e.code, reason: e.reason };
    wake();
  });
  socket.accept();
  let nextId = 1;
  /** Waits until a message matches (and returns it). */
  const until = async (match: (message: any) => boolean): Promise<any> => {
    for (;;) {
      const found = received.find(match);
      if (found) return found;
      if (closed) throw new Error(`socket closed (${closed.code} ${closed.reason}) before the message looked for; got ${JSON.stringify(received)}`);
      await new Promise<void>((resolve) => waiters.push(resolve));
    }
  };
  return {
    socket,
    received,
    until,
    /** Sends a command and waits for its answer. */
    async send(method: string, params: Record<string, unknown> = {}): Promise<any> {
      const id = nextId++;
      socket.send(JSON.stringify({ id, method, params }));
      return until((m) => m.id === id && (m.type === "success" || m.type === "error"));
    },
    /** Waits for the server to close the socket. */
    async closedWith(): Promise<{ code: number; reason: string }> {
      while (!closed) await new Promise<void>((resolve) => waiters.push(resolve));
      return closed;
    },
  };
}
