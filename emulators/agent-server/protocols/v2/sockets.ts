import { MAX_JSON_DEPTH, nestsDeeperThan } from "../../../shared/json-depth.ts";
import { toValidationErrors } from "../../../../src/http/fastapi-errors.ts";
import { ThreadIdParam } from "../../ids.ts";
import type { ThreadStore } from "../../threads/store.ts";
import type { ProtocolCommands } from "./commands.ts";
import { answerOf, done, isObject, readCommand, refused, type CommandResult, type ProtocolAnswer, type ProtocolEvent } from "./envelope.ts";
import type { ProtocolEventBuffer } from "./event-buffer.ts";
import { matches, readFilter } from "./filter.ts";
import { SocketSubscriptions } from "./subscriptions.ts";

/**
 * The close code that ends a deleted thread's sockets for good: 4000 + the status the thread's
 * routes answer now (the 1.15 client does not reconnect after a 4xx close but 4408 and 4429; it
 * does after any other code).
 */
export const CLOSE_NOT_FOUND = 4404;

/**
 * What a socket carries across hibernation: its thread and its id, by which its subscriptions are
 * kept (protocols/v2/subscriptions.ts). Small and fixed, far from the attachment's 16 KB.
 */
interface SocketState {
  readonly threadId: string;
  readonly socketId: string;
}

/** What the sockets work with, all inside the state object. */
export interface SocketParts {
  readonly threads: ThreadStore;
  /** Read when a socket needs it (the buffer publishes to the sockets, so it is made after them). */
  readonly buffer: () => ProtocolEventBuffer;
  readonly commands: ProtocolCommands;
  readonly stepDelayMs: () => number;
}

const tagOf = (threadId: string) => `thread:${threadId}`;

/**
 * Protocol v2 over WebSocket (`GET /threads/{thread_id}/stream/events` with `Upgrade:
 * websocket`), accepted by the state object with the hibernation API, where the run engine writes
 * the events: no relay between the Worker and the object, and a quiet socket costs the object
 * nothing. Commands travel in-band as on `POST .../commands`, plus `subscription.subscribe`
 * (replays the thread's latest run, then live) and `subscription.unsubscribe`. A socket's
 * subscriptions are kept by its id (protocols/v2/subscriptions.ts), bounded in number and bytes,
 * and go when it closes: nothing stays behind.
 */
export class ProtocolSockets {
  readonly #ctx: DurableObjectState;
  readonly #parts: SocketParts;
  readonly #subscriptions: SocketSubscriptions;

  constructor(ctx: DurableObjectState, parts: SocketParts) {
    this.#ctx = ctx;
    this.#parts = parts;
    this.#subscriptions = new SocketSubscriptions(ctx.storage.sql);
    // Subscriptions of sockets that closed while the object was away (evicted, restarted) go now.
    this.#subscriptions.keepOnly(new Set(ctx.getWebSockets().flatMap((socket) => stateOf(socket)?.socketId ?? [])));
  }

  /**
   * Accepts the upgrade, on any thread id the route let through (a UUID): a thread that does not
   * exist yet is created by the socket's first `run.start`, as over HTTP, since the 1.15 client
   * makes a new thread's id and opens its socket before any command. Nothing here closes the
   * socket: a close sent in the turn that accepts it, before the 101 has left, never reaches a
   * client across a network in workerd (docs/agent-server.md, "Protocol v2"), so every refusal is
   * an HTTP answer instead.
   */
  accept(request: Request): Response {
    if (request.headers.get("upgrade")?.toLowerCase() !== "websocket") {
      return Response.json({ detail: "Expected a WebSocket upgrade (Upgrade: websocket)." }, { status: 426, headers: { upgrade: "websocket" } });
    }
    const threadId = decodeURIComponent(/\/threads\/([^/]+)\/stream\/events\/?$/.exec(new URL(request.url).pathname)?.[1] ?? "");
    const valid = ThreadIdParam.safeParse({ thread_id: threadId });
    // The Worker's route refuses these already; the object does not count on being reached only through it.
    if (!valid.success) return Response.json({ detail: toValidationErrors(valid.error.issues, "path", { thread_id: threadId }) }, { status: 422 });
    const { 0: client, 1: server } = new WebSocketPair();
    this.#ctx.acceptWebSocket(server, [tagOf(threadId)]);
    server.serializeAttachment({ threadId, socketId: crypto.randomUUID() } satisfies SocketState);
    return new Response(null, { status: 101, webSocket: client });
  }

  /** One in-band command; its answer goes back on the same socket. */
  message(socket: WebSocket, data: string | ArrayBuffer): void {
    const state = stateOf(socket);
    if (!state) return;
    const text = typeof data === "string" ? data : new TextDecoder().decode(data);
    let body: unknown;
    try {
      // Nesting is bounded as for HTTP bodies (shared/json-depth.ts), so no reading of it overflows the stack.
      if (nestsDeeperThan(text, MAX_JSON_DEPTH)) throw new Error("nested too deep");
      body = JSON.parse(text);
    } catch {
      return send(socket, {
        type: "error",
        id: null,
        error: "invalid_argument",
        message: `A command is a JSON text frame {id, method, params}, nested at most ${MAX_JSON_DEPTH} deep.`,
      });
    }
    const read = readCommand(body);
    if (!read.ok) return send(socket, read.answer);
    const { command } = read;
    let outcome: CommandResult;
    let replay: readonly ProtocolEvent[] = [];
    if (command.method === "subscription.subscribe") ({ outcome, replay } = this.#subscribe(state, command.params));
    else if (command.method === "subscription.unsubscribe") outcome = this.#unsubscribe(state, command.params);
    else outcome = this.#parts.commands.execute(state.threadId, command, this.#parts.stepDelayMs());
    // A subscription's replay goes before its answer (see `#subscribe`); the answer's
    // `applied_through_seq` is read after the command, so it covers what the command wrote.
    for (const event of replay) send(socket, event);
    send(socket, answerOf(command.id, outcome, this.#parts.buffer().latestSeq(state.threadId)));
  }

  /** The client closed: the close is answered, and the socket's subscriptions go. */
  closed(socket: WebSocket, code: number, reason: string): void {
    this.errored(socket);
    try {
      // 1005 and 1006 say no code was sent; they may not be sent back.
      socket.close(code === 1005 || code === 1006 ? 1000 : code, reason);
    } catch {
      // Already closed.
    }
  }

  /** The socket failed (no close will follow): its subscriptions go. */
  errored(socket: WebSocket): void {
    const state = stateOf(socket);
    if (state) this.#subscriptions.forget(state.socketId);
  }

  /** Hands a buffered event to every socket of its thread with a subscription that takes it. */
  publish(threadId: string, event: ProtocolEvent): void {
    for (const socket of this.#ctx.getWebSockets(tagOf(threadId))) {
      const state = stateOf(socket);
      if (!state) continue;
      if (this.#subscriptions.of(state.socketId).some(({ filter }) => matches(filter, event.method, event.params.namespace, event.params.data)))
        send(socket, event);
    }
  }

  /** A deleted thread's sockets are closed as if they had asked for an unknown one. */
  closeThread(threadId: string): void {
    for (const socket of this.#ctx.getWebSockets(tagOf(threadId))) {
      this.errored(socket);
      try {
        socket.close(CLOSE_NOT_FOUND, `Thread ${threadId} was deleted.`);
      } catch {
        // Already closed.
      }
    }
  }

  /**
   * A new subscription: the thread's latest run is replayed, only the events the new filter
   * takes, in seq order, then live events come as the subscriptions take them. The replay goes
   * on the socket BEFORE the subscribe's answer, unlike the real server (answer first): the 1.15
   * client subscribes once per projection, all at once after `run.start`, the lifecycle watcher
   * first, and pauses every projection one macrotask after a run's end reaches it. On a run that
   * ended before those subscriptions arrived, the watcher's replay carries the end, and a values
   * projection whose replay came after its answer would find itself paused and read nothing
   * (`await stream.output` undefined). The client files each event under every subscription
   * whose filter takes it, the ones still waiting for their answer too, and a projection starts
   * reading only once its answer came, emptying what was filed before it stops for a pause: so a
   * replay sent before the answer always reaches it. Repeats are dropped by `event_id`.
   */
  #subscribe(state: SocketState, params: Record<string, unknown>): { outcome: CommandResult; replay: readonly ProtocolEvent[] } {
    const read = readFilter(params);
    if (!read.ok) return { outcome: refused("invalid_argument", read.message), replay: [] };
    const added = this.#subscriptions.add(state.socketId, state.threadId, read.filter);
    if (!added.ok) return { outcome: refused("invalid_argument", added.message), replay: [] };
    const replay = this.#parts
      .buffer()
      .replay(state.threadId)
      .filter((event) => matches(read.filter, event.method, event.params.namespace, event.params.data));
    return { outcome: done({ subscription_id: added.id, replayed_events: replay.length }), replay };
  }

  #unsubscribe(state: SocketState, params: Record<string, unknown>): CommandResult {
    const id = isObject(params) ? params.subscription_id : undefined;
    if (typeof id !== "string" || !this.#subscriptions.remove(state.socketId, id))
      return refused("no_such_subscription", `No subscription ${JSON.stringify(id ?? null)} on this socket.`);
    return done();
  }
}

/** The socket's state, or undefined for one accepted before sockets had an id (nothing to serve it with). */
function stateOf(socket: WebSocket): SocketState | undefined {
  const state = socket.deserializeAttachment() as Partial<SocketState> | null;
  return typeof state?.socketId === "string" && typeof state.threadId === "string" ? (state as SocketState) : undefined;
}

function send(socket: WebSocket, message: ProtocolAnswer | ProtocolEvent): void {
  try {
    socket.send(JSON.stringify(message));
  } catch {
    // The socket closed meanwhile: nothing to deliver to.
  }
}
