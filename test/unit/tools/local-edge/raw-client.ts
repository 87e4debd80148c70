// A client that writes HTTP/1.1 by hand, for what fetch and http.request will not send (two
// `Upgrade` lines, an upgrade with a body, a non-GET upgrade) and to see what the server does to
// the connection afterwards: answers read one at a time off one socket.
import net from "node:net";
import { once } from "node:events";
import { afterEach } from "vitest";

const opened: net.Socket[] = [];
afterEach(() => {
  for (const socket of opened.splice(0)) socket.destroy();
});

export interface RawResponse {
  readonly status: number;
  /** Header names lower-cased, each with every value it was sent with, in order. */
  readonly headers: Readonly<Record<string, string[]>>;
  readonly body: Buffer;
}

/** One connection to `port` on 127.0.0.1: write bytes, read whole responses, see when the server ends it. */
export async function rawConnection(port: number) {
  const socket = net.connect(port, "127.0.0.1");
  opened.push(socket);
  await once(socket, "connect");
  let buffered = Buffer.alloc(0);
  let ended = false;
  let wake: (() => void) | undefined;
  socket.on("data", (chunk: Buffer) => ((buffered = Buffer.concat([buffered, chunk])), wake?.()));
  socket.on("error", () => undefined);
  const closed = new Promise<void>((resolve) => socket.on("close", () => ((ended = true), wake?.(), resolve())));

  /** Waits until `ready` finds what it needs in the bytes received (then consumes them), or the server ends. */
  async function take<T>(ready: (bytes: Buffer) => { value: T; used: number } | undefined): Promise<T> {
    for (;;) {
      const found = ready(buffered);
      if (found) {
        buffered = buffered.subarray(found.used);
        return found.value;
      }
      if (ended) throw new Error(`The connection ended with ${buffered.length} bytes unread: ${JSON.stringify(buffered.toString("latin1"))}`);
      await new Promise<void>((resolve) => (wake = resolve));
    }
  }

  return {
    write: (bytes: string | Buffer) => socket.write(bytes),
    /** The next response; a 101's headers only (what follows is the upgraded protocol's). */
    response: () => take(parseResponse),
    /** `count` bytes as they come (frames after a 101). */
    bytes: (count: number) => take((bytes) => (bytes.length >= count ? { value: bytes.subarray(0, count), used: count } : undefined)),
    /** Resolves when the server has closed the connection. */
    closed,
  };
}

function parseResponse(bytes: Buffer): { value: RawResponse; used: number } | undefined {
  const end = bytes.indexOf("\r\n\r\n");
  if (end < 0) return undefined;
  const [statusLine, ...lines] = bytes.subarray(0, end).toString("latin1").split("\r\n");
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine!)?.[1]);
  const headers: Record<string, string[]> = {};
  for (const line of lines) {
    const colon = line.indexOf(":");
    (headers[line.slice(0, colon).trim().toLowerCase()] ??= []).push(line.slice(colon + 1).trim());
  }
  let at = end + 4;
  if (status === 101 || status === 204 || status === 304) return { value: { status, headers, body: Buffer.alloc(0) }, used: at };
  if (headers["transfer-encoding"]?.join(",").toLowerCase().includes("chunked")) {
    const chunks: Buffer[] = [];
    for (;;) {
      const lineEnd = bytes.indexOf("\r\n", at);
      if (lineEnd < 0) return undefined;
      const size = parseInt(bytes.subarray(at, lineEnd).toString("latin1"), 16);
      if (bytes.length < lineEnd + 2 + size + 2) return undefined;
      chunks.push(bytes.subarray(lineEnd + 2, lineEnd + 2 + size));
      at = lineEnd + 2 + size + 2;
      if (size === 0) return { value: { status, headers, body: Buffer.concat(chunks) }, used: at };
    }
  }
  const length = Number(headers["content-length"]?.[0] ?? 0);
  if (bytes.length < at + length) return undefined;
  return { value: { status, headers, body: bytes.subarray(at, at + length) }, used: at + length };
}

/** A masked client text frame (RFC 6455 5.3: every client frame is masked), payload under 126 bytes. */
export function maskedTextFrame(text: string): Buffer {
  const payload = Buffer.from(text);
  const mask = Buffer.from([0x12, 0x34, 0x56, 0x78]);
  return Buffer.concat([Buffer.from([0x81, 0x80 | payload.length]), mask, payload.map((byte, i) => byte ^ mask[i % 4]!)]);
}

/** The unmasked text frame a server sends for `text` (under 126 bytes). */
export function serverTextFrame(text: string): Buffer {
  const payload = Buffer.from(text);
  return Buffer.concat([Buffer.from([0x81, payload.length]), payload]);
}
