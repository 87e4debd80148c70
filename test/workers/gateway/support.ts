// The gateway folder's WebSocket helpers (websocket-relay and websocket-evasion tests).
import { expect } from "vitest";

/** The headers of a well-formed WebSocket upgrade, `extra` added. */
export function upgradeHeaders(extra: Record<string, string> = {}): Record<string, string> {
  return { upgrade: "websocket", connection: "Upgrade", "sec-websocket-version": "13", "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==", ...extra };
}

/** What one side of a socket received, in order, and how it was closed. */
export interface SocketPeer {
  /** The next frame received (text as a string, binary as bytes), waiting for it if need be. */
  next(): Promise<string | Uint8Array>;
  /** Settles with the close frame this side received. */
  readonly closed: Promise<{ code: number; reason: string }>;
  readonly socket: WebSocket;
}

/** Accepts the socket of a 101 and queues what it receives; fails the test when there is none. */
export function acceptSocket(res: Response): SocketPeer {
  expect(res.status).toBe(101);
  const socket = res.webSocket;
  expect(socket).not.toBeNull();
  const ws = socket!;
  ws.binaryType = "arraybuffer";
  ws.accept();
  const frames: Array<string | Uint8Array> = [];
  const waiting: Array<(frame: string | Uint8Array) => void> = [];
  ws.addEventListener("message", (event) => {
    const frame = typeof event.data === "string" ? event.data : new Uint8Array(event.data as ArrayBuffer);
    const waiter = waiting.shift();
    if (waiter) waiter(frame);
    else frames.push(frame);
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) => {
    ws.addEventListener("close", (event) => resolve({ code: event.code, reason: event.reason }));
  });
  return {
    socket: ws,
    closed,
    next: () => (frames.length > 0 ? Promise.resolve(frames.shift()!) : new Promise((resolve) => waiting.push(resolve))),
  };
}

/** The rule a response was counted on, from its RateLimit-Policy name. */
export const ruleNameOf = (res: Response) => /^"([^"]+)"/.exec(res.headers.get("ratelimit-policy") ?? "")?.[1];

/**
 * A protocol v2 socket from a 101: `command` sends a command and waits for its answer (by id),
 * `next` takes the next message not yet taken, `raw` sends a frame as it is.
 */
export function commandSocket(res: Response) {
  const peer = acceptSocket(res);
  const received: any[] = [];
  let taken = 0;
  let nextId = 1;
  const waiters: Array<() => void> = [];
  const pump = async () => {
    for (;;) {
      const frame = await Promise.race([peer.next(), peer.closed.then(() => undefined)]);
      if (frame === undefined) break;
      received.push(JSON.parse(typeof frame === "string" ? frame : new TextDecoder().decode(frame)));
      waiters.splice(0).forEach((wake) => wake());
    }
    waiters.splice(0).forEach((wake) => wake());
  };
  void pump();
  let ended = false;
  void peer.closed.then(() => (ended = true));
  const until = async (match: (message: any) => boolean): Promise<any> => {
    for (;;) {
      const found = received.find(match);
      if (found) return found;
      if (ended) throw new Error(`socket closed before the message looked for; got ${JSON.stringify(received)}`);
      await new Promise<void>((resolve) => waiters.push(resolve));
    }
  };
  return {
    received,
    closed: peer.closed,
    raw: (frame: string | Uint8Array) => peer.socket.send(frame),
    async command(method: string, params: Record<string, unknown> = {}): Promise<any> {
      const id = nextId++;
      peer.socket.send(JSON.stringify({ id, method, params }));
      return until((m) => m.id === id && (m.type === "success" || m.type === "error"));
    },
    async next(): Promise<any> {
      while (received.length <= taken) {
        if (ended) throw new Error("socket closed");
        await new Promise<void>((resolve) => waiters.push(resolve));
      }
      return received[taken++];
    },
    close: () => peer.socket.close(1000, ""),
  };
}
