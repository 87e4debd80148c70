import type { Context, MiddlewareHandler } from "hono";
import { createMiddleware } from "hono/factory";
import type { ValidationError } from "../../src/http/fastapi-errors.ts";
import { MAX_JSON_DEPTH, nestsDeeperThan } from "./json-depth.ts";

/**
 * The largest request body an emulator reads: beyond it the body is still drained to its end (a
 * sender is never cut off) but not kept, and a route that reads it answers 413. The bound is the
 * emulators' own: an emulator runs in a Worker's memory, where parsing a body many times this size
 * could exhaust the isolate (a 500). docs/emulators.md, "Body size and depth".
 */
export const MAX_BODY_BYTES = 4 * 1024 * 1024;

/** Why a body could not be read as JSON: FastAPI's 400 or 422, or the emulators' 413. */
export type BodyRefusal =
  | { readonly ok: false; readonly status: 400 | 413; readonly detail: string }
  | { readonly ok: false; readonly status: 422; readonly detail: readonly ValidationError[] };

/** A request body as read: its value, or why it was refused. */
export type JsonBody = { readonly ok: true; readonly value: unknown } | BodyRefusal;

const JSON_CONTENT_TYPE = /^application\/([\w.-]+\+)?json\b/i;

/** FastAPI's answer when reading a JSON body fails with anything but a JSONDecodeError. */
const PARSE_ERROR = { ok: false, status: 400, detail: "There was an error parsing the body" } as const;
const TOO_LARGE = { ok: false, status: 413, detail: `Request body too large: the emulator reads at most ${MAX_BODY_BYTES} bytes.` } as const;

/** Requests whose body was over MAX_BODY_BYTES (readBodyFirst drained it and kept none of it). */
const oversized = new WeakSet<Request>();

export interface ReadOptions {
  /**
   * Parse the body as JSON whatever its content type says (JSON-RPC endpoints). By default, as
   * FastAPI does, only a JSON or absent content type is parsed; other text is kept as text, so a
   * model then fails with a type error.
   */
  readonly anyContentType?: boolean;
}

/**
 * The one way the emulators read a JSON body, on every route that takes one (through
 * `validate("json", ...)`, or directly where a protocol answers in its own shape): parsed as
 * FastAPI parses it, within MAX_BODY_BYTES and MAX_JSON_DEPTH; an empty body is "missing"
 * (`undefined`).
 *
 * FastAPI answers a JSON body that CPython's `json` fails on with anything but a JSONDecodeError
 * with 400 "There was an error parsing the body": bytes that are not UTF-8 (UnicodeDecodeError),
 * and nesting deeper than MAX_JSON_DEPTH (RecursionError). The depth is checked before parsing;
 * here it also keeps the recursive code after parsing (validation, serialization) from
 * overflowing the stack, which would be a 500. Malformed JSON is FastAPI's 422 `json_invalid`.
 */
export async function readJsonBody(c: Context, options: ReadOptions = {}): Promise<JsonBody> {
  const bytes = await c.req.arrayBuffer();
  if (oversized.has(c.req.raw)) return TOO_LARGE;
  const type = c.req.header("content-type") ?? "";
  const isJson = options.anyContentType === true || type === "" || JSON_CONTENT_TYPE.test(type);
  let text: string;
  try {
    // A leading byte order mark is dropped (ignoreBOM: false), as CPython's json drops it from bytes.
    text = new TextDecoder("utf-8", { fatal: isJson, ignoreBOM: false }).decode(bytes);
  } catch {
    return PARSE_ERROR;
  }
  if (text.trim() === "") return { ok: true, value: undefined };
  if (!isJson) return { ok: true, value: text };
  if (nestsDeeperThan(text, MAX_JSON_DEPTH)) return PARSE_ERROR;
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    return {
      ok: false,
      status: 422,
      detail: [{ type: "json_invalid", loc: ["body", 0], msg: "JSON decode error", ctx: { error: error instanceof Error ? error.message : String(error) } }],
    };
  }
}

/**
 * Reads `body` to its end, keeping at most `limit` bytes: whether it was over, and the bytes kept
 * (none when it was over). Memory stays bounded whatever the sender sends.
 */
export async function drainBounded(
  body: ReadableStream<Uint8Array>,
  limit: number = MAX_BODY_BYTES,
): Promise<{ readonly over: boolean; readonly bytes: Uint8Array }> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  let over = false;
  const reader = body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) over = true;
    if (over) chunks.length = 0;
    else chunks.push(value);
  }
  if (over) return { over, bytes: new Uint8Array(0) };
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return { over, bytes };
}

/**
 * Reads every request body in full before anything can answer: an emulator that answers without
 * needing the body (a 401, a 404) must not cut off the gateway while it is still streaming that
 * body in. The bytes (at most MAX_BODY_BYTES; none beyond it) go into Hono's body cache, so
 * `c.req.arrayBuffer()` and `validate("json", ...)` read them from there; `readJsonBody` answers
 * 413 for a body that was over. Malformed JSON is reported where a route reads its body, and
 * ignored elsewhere, as FastAPI does.
 */
export function readBodyFirst(): MiddlewareHandler {
  return createMiddleware(async (c, next) => {
    const body = c.req.raw.body;
    if (body) {
      const { over, bytes } = await drainBounded(body);
      if (over) oversized.add(c.req.raw);
      // Hono keeps the promise of each body reading here (its type names the resolved values).
      (c.req.bodyCache as Record<string, unknown>).arrayBuffer = Promise.resolve(bytes.buffer as ArrayBuffer);
    }
    await next();
  });
}
