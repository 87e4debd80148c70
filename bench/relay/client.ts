// The bench's client side, with `ws`: sockets opened through a target, commands pumped with a
// bounded number unanswered, event frames awaited, sockets held and closed. A socket that stops
// making progress fails the run with what it was waiting for, rather than hanging the bench.
import WebSocket from "ws";
import { SOCKET_PATH, subscribeCommand } from "./frames.ts";

/** A socket that has received nothing for this long while a frame was due has stalled. */
const STALL_MS = 30_000;

/** The socket URL of `target`, with the query the upstream reads (frames.ts). */
export function socketUrl(target: URL, query: Readonly<Record<string, string | number>> = {}): string {
  const url = new URL(SOCKET_PATH, target);
  url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
  for (const [name, value] of Object.entries(query)) url.searchParams.set(name, String(value));
  return url.href;
}

/** @throws Error naming the status when the target answers the upgrade with anything but a 101 */
export function openSocket(url: string, apiKey: string): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, { headers: { "x-api-key": apiKey }, perMessageDeflate: false });
    socket.once("open", () => resolve(socket));
    socket.once("unexpected-response", (_request, response) => {
      reject(new Error(`${url}: the upgrade was answered ${response.statusCode}, not 101`));
      socket.terminate();
    });
    socket.once("error", (error) => reject(error));
  });
}

/** Resolves when `socket` has received `count` more frames; rejects when it stalls or closes first. */
function receive(socket: WebSocket, count: number, onFrame: (received: number) => void = () => undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    let received = 0;
    let timer: NodeJS.Timeout | undefined;
    const finish = (error?: Error) => {
      clearTimeout(timer);
      socket.off("message", onMessage);
      socket.off("close", onClose);
      if (error) reject(error);
      else resolve();
    };
    const arm = () => {
      clearTimeout(timer);
      timer = setTimeout(() => finish(new Error(`a socket stalled: ${received} of ${count} frames after ${STALL_MS / 1000} s without one`)), STALL_MS);
    };
    const onMessage = () => {
      received++;
      if (received === count) return finish();
      arm();
      onFrame(received);
    };
    const onClose = (code: number) => finish(new Error(`a socket closed (${code}) after ${received} of ${count} frames`));
    socket.on("message", onMessage);
    socket.on("close", onClose);
    if (count === 0) return finish();
    arm();
  });
}

/**
 * Sends `count` command frames (`frame(id)`, ids from 1), at most `window` unanswered at once,
 * and resolves once every one is answered (one answer frame each).
 */
export function pumpCommands(socket: WebSocket, count: number, frame: (id: number) => string, window: number): Promise<void> {
  let sent = 0;
  const send = () => socket.send(frame(++sent));
  const done = receive(socket, count, () => {
    if (sent < count) send();
  });
  while (sent < Math.min(window, count)) send();
  return done;
}

/** Sends one subscribe and resolves once its answer and `events` event frames have arrived. */
export function receiveEvents(socket: WebSocket, events: number): Promise<void> {
  const done = receive(socket, events + 1);
  socket.send(subscribeCommand(1));
  return done;
}

/** Opens `count` sockets, `concurrency` at a time, each answered one small command before it counts as held. */
export async function holdSockets(
  count: number,
  open: (i: number) => Promise<WebSocket>,
  concurrency: number,
  ping: (socket: WebSocket) => Promise<void>,
): Promise<WebSocket[]> {
  const sockets: WebSocket[] = [];
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const socket = await open(next++);
      sockets.push(socket);
      await ping(socket);
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
  } catch (error) {
    await closeAll(sockets);
    throw error;
  }
  return sockets;
}

/** Closes every socket and waits for each close (a socket that does not answer is ended after 5 s). */
export async function closeAll(sockets: readonly WebSocket[]): Promise<void> {
  await Promise.all(
    sockets.map(
      (socket) =>
        new Promise<void>((resolve) => {
          if (socket.readyState === WebSocket.CLOSED) return resolve();
          const timer = setTimeout(() => socket.terminate(), 5000);
          socket.once("close", () => {
            clearTimeout(timer);
            resolve();
          });
          socket.close(1000);
        }),
    ),
  );
}
