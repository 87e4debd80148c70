import { RpcTarget } from "cloudflare:workers";
import { ok, refuse, type Result } from "../../../shared/result.ts";
import type { ProtocolCommands } from "./commands.ts";
import { answerOf, readCommand, type ProtocolAnswer } from "./envelope.ts";
import type { ProtocolEventBuffer } from "./event-buffer.ts";
import { protocolEventStream } from "./event-stream.ts";
import { readFilter } from "./filter.ts";

/** What the HTTP side of protocol v2 works with, all inside the state object. */
export interface ProtocolParts {
  readonly buffer: ProtocolEventBuffer;
  readonly commands: ProtocolCommands;
  readonly sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  readonly waitUntil: (work: Promise<unknown>) => void;
}

/**
 * Protocol v2 over HTTP, over RPC from the Worker's routes (protocols/v2/routes.ts): one command
 * (`POST /threads/{thread_id}/commands`) and one event stream (`POST .../stream/events`). The
 * sockets on the same path are the object's own (protocols/v2/sockets.ts).
 */
export class ProtocolStore extends RpcTarget {
  readonly #parts: ProtocolParts;

  constructor(parts: ProtocolParts) {
    super();
    this.#parts = parts;
  }

  /**
   * Runs one command: 200 with its ProtocolSuccess or ProtocolError, or 400 with a ProtocolError
   * for an envelope that is not `{id, method, params}`.
   */
  command(threadId: string, body: unknown, stepDelayMs: number): { readonly status: 200 | 400; readonly answer: ProtocolAnswer } {
    const read = readCommand(body);
    if (!read.ok) return { status: 400, answer: read.answer };
    const outcome = this.#parts.commands.execute(threadId, read.command, stepDelayMs);
    return { status: 200, answer: answerOf(read.command.id, outcome, this.#parts.buffer.latestSeq(threadId)) };
  }

  /**
   * Opens an event stream: 400 for a body that is no ProtocolEventStreamRequest. A thread that
   * does not exist yet is listened to all the same, as the real server does: the official client
   * makes a new thread's id, awaits its stream's headers, then sends the `run.start` that creates
   * the thread (docs/agent-server.md, "Protocol v2").
   */
  events(threadId: string, body: unknown): Result<Response> {
    const read = readFilter(body);
    if (!read.ok) return refuse(400, read.message);
    return ok(
      protocolEventStream(
        this.#parts.buffer,
        { threadId, filter: read.filter, since: read.since },
        { sleep: this.#parts.sleep, waitUntil: this.#parts.waitUntil },
      ),
    );
  }

  /** How many event streams are open on the thread (0 once every client left: nothing stays behind). */
  listenerCount(threadId: string): number {
    return this.#parts.buffer.listenerCount(threadId);
  }
}
