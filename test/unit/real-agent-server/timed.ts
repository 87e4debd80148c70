// An HTTP request whose answer is timed as it arrives: when its headers came and when each body
// chunk did, as raw bytes (compressed or not), from the moment it was sent. Node's http, not
// fetch, so nothing between the socket and the test buffers or decompresses.
import http from "node:http";

export interface TimedChunk {
  /** ms since the request was sent */
  readonly at: number;
  readonly bytes: number;
  /** The chunk as text (latin1 when the body is compressed). */
  readonly text: string;
}

export interface TimedAnswer {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  /** `performance.now()` when the request was sent: to time its chunks from another moment. */
  readonly sentAt: number;
  /** ms from sending the request to its response headers */
  readonly headersAt: number;
  /** The body chunks come so far (an event stream's, which does not end by itself). */
  live(): readonly TimedChunk[];
  /** Resolves with each body chunk as it came, once the body ends (or `close()` ends it). */
  readonly chunks: Promise<TimedChunk[]>;
  /** The body as text, once it ends (undecoded bytes as latin1 if compressed). */
  readonly text: Promise<string>;
  /** Ends the request (an event stream, which would not end itself). */
  close(): void;
}

export interface TimedRequest {
  readonly method?: string;
  readonly headers?: Record<string, string>;
  readonly body?: unknown;
}

/**
 * Sends the request with `Accept-Encoding: gzip, deflate` (what Node's fetch and browsers send)
 * unless `headers` says otherwise, and resolves at its response headers.
 */
export function timedRequest(url: string, request: TimedRequest = {}): { answer: Promise<TimedAnswer>; abort(): void } {
  const text = request.body === undefined ? undefined : JSON.stringify(request.body);
  const sent = performance.now();
  const req = http.request(url, {
    method: request.method ?? (text === undefined ? "GET" : "POST"),
    headers: {
      "accept-encoding": "gzip, deflate",
      ...(text !== undefined && { "content-type": "application/json" }),
      ...request.headers,
    },
  });
  const answer = new Promise<TimedAnswer>((resolve, reject) => {
    req.once("error", reject);
    req.once("response", (res) => {
      const headersAt = performance.now() - sent;
      const chunks: TimedChunk[] = [];
      const buffers: Buffer[] = [];
      res.on("data", (chunk: Buffer) => {
        chunks.push({ at: performance.now() - sent, bytes: chunk.length, text: chunk.toString(res.headers["content-encoding"] ? "latin1" : "utf8") });
        buffers.push(chunk);
      });
      const ended = new Promise<void>((done) => {
        res.once("end", done);
        res.once("close", done);
        res.once("error", () => done());
      });
      resolve({
        status: res.statusCode!,
        headers: res.headers,
        sentAt: sent,
        headersAt,
        live: () => [...chunks],
        chunks: ended.then(() => chunks),
        text: ended.then(() => Buffer.concat(buffers).toString(res.headers["content-encoding"] ? "latin1" : "utf8")),
        close: () => req.destroy(),
      });
    });
  });
  req.end(text);
  return { answer, abort: () => req.destroy() };
}

/** Resolves with the first of `promise` and a timeout's `undefined`: a wait a test bounds itself. */
export function within<T>(ms: number, promise: Promise<T>): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => (timer = setTimeout(resolve, ms, undefined)));
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
