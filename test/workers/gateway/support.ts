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
  return peerOf(socket!);
}

/** Accepts `ws` and queues what it receives (binary as bytes), in order, and how it was closed. */
export function peerOf(ws: WebSocket): SocketPeer {
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

/** The upstream's side of one socket a scripted upstream accepted. */
export interface UpstreamSocket extends SocketPeer {
  /** The upgrade as it reached the upstream. */
  readonly request: Request;
  /** The end handed to the gateway in the 101 (the one its relay listens on). */
  readonly gatewayEnd: WebSocket;
}

/**
 * An upstream the test plays: each WebSocket upgrade is answered 101 with a pair of its own, whose
 * far end the test reads and drives (`opened()` waits for the next one); any other request is
 * answered 200 `{"ok": true}`. `requests` lists everything that reached it.
 */
export function scriptedUpstream() {
  const requests: Request[] = [];
  const sockets: UpstreamSocket[] = [];
  const waiting: Array<() => void> = [];
  let taken = 0;
  const fetcher = {
    fetch: async (input: RequestInfo | URL, init?: RequestInit) => {
      const request = new Request(input, init);
      requests.push(request);
      if (request.headers.get("upgrade")?.toLowerCase() !== "websocket") return Response.json({ ok: true });
      const { 0: gatewayEnd, 1: far } = new WebSocketPair();
      const socket: UpstreamSocket = { ...peerOf(far), request, gatewayEnd };
      sockets.push(socket);
      waiting.splice(0).forEach((wake) => wake());
      return new Response(null, { status: 101, webSocket: gatewayEnd });
    },
  } as unknown as Fetcher;
  return {
    fetcher,
    requests,
    sockets,
    /** The next socket opened that no earlier call took. */
    async opened(): Promise<UpstreamSocket> {
      const index = taken++;
      while (!sockets[index]) await new Promise<void>((wake) => waiting.push(wake));
      return sockets[index];
    },
  };
}

/** A binding that records what reached it (`seen`, cloned) and passes it on to `target` (an emulator Worker). */
export function recordingFetcher(target: Fetcher) {
  const seen: Request[] = [];
  const fetcher = {
    fetch: (input: RequestInfo | URL, init?: RequestInit) => {
      const request = new Request(input, init);
      seen.push(request.clone());
      return target.fetch(request);
    },
  } as unknown as Fetcher;
  return { seen, fetcher };
}
