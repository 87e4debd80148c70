/** One server-sent event of a run stream: its type and its JSON data. */
export interface StreamEvent {
  readonly event: string;
  readonly data: unknown;
}

const encoder = new TextEncoder();

/**
 * The wire form of one event, as the real server writes it: `event: <type>\ndata: <json>\n\n`.
 * JSON never contains a raw newline, so one `data:` line always holds the whole payload.
 */
export function encodeEvent({ event, data }: StreamEvent): Uint8Array {
  return encoder.encode(`event: ${event}\ndata: ${JSON.stringify(data ?? null)}\n\n`);
}

/** Reads complete events out of SSE text; the remainder is an incomplete event still arriving. */
export function parseEvents(text: string): { events: StreamEvent[]; rest: string } {
  const blocks = text.split("\n\n");
  const rest = blocks.pop() ?? "";
  const events = blocks
    .filter((block) => block.trim() !== "")
    .map((block) => {
      let event = "message";
      const data: string[] = [];
      for (const line of block.split("\n")) {
        if (line.startsWith("event:")) event = line.slice(6).trim();
        else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
      }
      return { event, data: data.length ? JSON.parse(data.join("\n")) : null };
    });
  return { events, rest };
}
