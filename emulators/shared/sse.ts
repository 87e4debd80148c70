/**
 * Server-sent events, the one writer every emulator uses, and its reader (for tests and tools).
 * The wire form is what the agent server writes: `event: <type>\ndata: <json>\n\n`, with an
 * `id: <id>` line after the data when an event has one.
 */

/** One server-sent event: its type, its JSON data, and an id when the stream can be resumed. */
export interface ServerSentEvent {
  readonly event: string;
  readonly data: unknown;
  readonly id?: string | undefined;
}

const encoder = new TextEncoder();

/**
 * The wire form of one event. JSON never contains a raw newline, so one `data:` line always holds
 * the whole payload.
 */
export function encodeEvent({ event, data, id }: ServerSentEvent): Uint8Array {
  return encoder.encode(`event: ${event}\ndata: ${JSON.stringify(data ?? null)}\n${id === undefined ? "" : `id: ${id}\n`}\n`);
}

/**
 * A comment line (`: <text>`): every SSE reader ignores it. Written without the blank line that
 * ends an event, so a reader that dispatches on any blank line (the official JS client re-sends
 * the last id with an empty event then) still sees nothing.
 */
export function encodeComment(text: string): Uint8Array {
  return encoder.encode(`: ${text}\n`);
}

/** Reads complete events out of SSE text; the remainder is an incomplete event still arriving. */
export function parseEvents(text: string): { events: ServerSentEvent[]; rest: string } {
  const blocks = text.split("\n\n");
  const rest = blocks.pop() ?? "";
  const events = blocks
    // A block of comments only (heartbeats) is no event.
    .filter((block) => block.split("\n").some((line) => line.trim() !== "" && !line.startsWith(":")))
    .map((block) => {
      let event = "message";
      let id: string | undefined;
      const data: string[] = [];
      for (const line of block.split("\n")) {
        if (line.startsWith("event:")) event = line.slice(6).trim();
        else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
        else if (line.startsWith("id:")) id = line.slice(3).trim();
      }
      const parsed = { event, data: data.length ? JSON.parse(data.join("\n")) : null };
      return id === undefined ? parsed : { ...parsed, id };
    });
  return { events, rest };
}

/** Where a producer writes its events. `send` never waits for the reader. */
export interface EventSink {
  send(event: ServerSentEvent): void;
}

export interface EventStreamOptions {
  /** Response headers besides the content type and caching (e.g. `Content-Location`). */
  readonly headers?: Readonly<Record<string, string>>;
  /** Keeps the Worker alive until the producer is done, even after the client hung up. */
  readonly waitUntil: (work: Promise<unknown>) => void;
  /** Called when the reader goes away before the stream ended, so a producer that would go on can stop. */
  readonly onCancel?: () => void;
  /** How often a quiet stream writes a heartbeat comment (ms); {@link HEARTBEAT_MS} by default. */
  readonly heartbeatMs?: number;
  /**
   * How the stream waits for its next heartbeat: a machine timer by default; an emulator whose
   * tests move its clock passes that clock's sleep, so a test sees heartbeats without waiting.
   * Must resolve at once when `signal` aborts (the stream is over).
   */
  readonly sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

/**
 * A quiet stream's heartbeat period: sse-starlette's default ping, which the real server's streams
 * are written with. Proxies and load balancers close connections idle for longer than a minute or
 * so; a comment every 15 s keeps an idle thread stream open.
 */
export const HEARTBEAT_MS = 15_000;

/**
 * A `200 text/event-stream` response whose events `produce` writes as they happen; the stream
 * closes when `produce` settles. It opens with a comment (`: connected`), so the status line and
 * headers go out at once even through a proxy that sends them with the first body bytes (wrangler
 * dev's does), and writes `: heartbeat` every {@link HEARTBEAT_MS} while it is open. Events are queued, never awaited, so a slow or departed client
 * cannot stall the producer, and the producer runs to its end either way (`waitUntil`): what it
 * saves is saved. `produce` handles its own failures; one that escapes ends the stream.
 *
 * @example
 * return streamEvents(async (sink) => sink.send({ event: "metadata", data: { run_id } }), { waitUntil });
 */
export function streamEvents(produce: (sink: EventSink) => Promise<void>, options: EventStreamOptions): Response {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let open = true;
  let heartbeat: ReturnType<typeof setInterval> | undefined;
  const beats = new AbortController();
  const stopBeating = () => {
    if (heartbeat !== undefined) clearInterval(heartbeat);
    beats.abort();
  };
  const write = (bytes: Uint8Array) => {
    if (!open) return;
    try {
      controller.enqueue(bytes);
    } catch {
      open = false;
    }
  };
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      controller = c;
      c.enqueue(encodeComment("connected"));
      const every = options.heartbeatMs ?? HEARTBEAT_MS;
      const sleep = options.sleep;
      if (sleep === undefined) heartbeat = setInterval(() => write(encodeComment("heartbeat")), every);
      else
        void (async () => {
          for (;;) {
            await sleep(every, beats.signal);
            if (beats.signal.aborted || !open) return;
            write(encodeComment("heartbeat"));
          }
        })();
    },
    cancel() {
      open = false;
      stopBeating();
      options.onCancel?.();
    },
  });
  const sink: EventSink = { send: (event) => write(encodeEvent(event)) };
  const work = (async () => {
    try {
      await produce(sink);
    } finally {
      stopBeating();
      if (open) controller.close();
    }
  })();
  options.waitUntil(work);
  return new Response(body, {
    status: 200,
    headers: { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-store", ...options.headers },
  });
}
