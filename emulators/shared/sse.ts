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

/** Reads complete events out of SSE text; the remainder is an incomplete event still arriving. */
export function parseEvents(text: string): { events: ServerSentEvent[]; rest: string } {
  const blocks = text.split("\n\n");
  const rest = blocks.pop() ?? "";
  const events = blocks
    .filter((block) => block.trim() !== "")
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
}

/**
 * A `200 text/event-stream` response whose events `produce` writes as they happen; the stream
 * closes when `produce` settles. Events are queued, never awaited, so a slow or departed client
 * cannot stall the producer, and the producer runs to its end either way (`waitUntil`): what it
 * saves is saved. `produce` handles its own failures; one that escapes ends the stream.
 *
 * @example
 * return streamEvents(async (sink) => sink.send({ event: "metadata", data: { run_id } }), { waitUntil });
 */
export function streamEvents(produce: (sink: EventSink) => Promise<void>, options: EventStreamOptions): Response {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let open = true;
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      controller = c;
    },
    cancel() {
      open = false;
      options.onCancel?.();
    },
  });
  const sink: EventSink = {
    send(event) {
      if (!open) return;
      try {
        controller.enqueue(encodeEvent(event));
      } catch {
        open = false;
      }
    },
  };
  const work = (async () => {
    try {
      await produce(sink);
    } finally {
      if (open) controller.close();
    }
  })();
  options.waitUntil(work);
  return new Response(body, {
    status: 200,
    headers: { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-store", ...options.headers },
  });
}
