import type { Context, MiddlewareHandler } from "hono";
import { createMiddleware } from "hono/factory";
import type { ValidationError } from "../../src/http/fastapi-errors.ts";
import { MAX_JSON_DEPTH, nestsDeeperThan } from "./json-depth.ts";

/** A request body as read: its value, or FastAPI's refusal (400 `{"detail"}` or 422 `json_invalid`). */
export type JsonBody =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly status: 400; readonly detail: string }
  | { readonly ok: false; readonly status: 422; readonly detail: readonly ValidationError[] };

const JSON_CONTENT_TYPE = /^application\/([\w.-]+\+)?json\b/i;

/** FastAPI's answer when reading a JSON body fails with anything but a JSONDecodeError. */
const PARSE_ERROR = { ok: false, status: 400, detail: "There was an error parsing the body" } as const;

/**
 * The body as FastAPI reads it: parsed as JSON when the content type is JSON or absent, kept as
 * text otherwise (so a model then fails with a type error); an empty body is "missing". Always
 * reads the whole body, so a streaming sender is never cut off mid-request.
 *
 * FastAPI answers a JSON body that CPython's `json` fails on with anything but a JSONDecodeError
 * with 400 "There was an error parsing the body": bytes that are not UTF-8 (UnicodeDecodeError),
 * and nesting deeper than MAX_JSON_DEPTH (RecursionError). The depth is checked before parsing;
 * here it also keeps the recursive code after parsing (validation, serialization) from
 * overflowing the stack, which would be a 500.
 */
export async function readJsonBody(c: Context): Promise<JsonBody> {
  const bytes = await c.req.arrayBuffer();
  const type = c.req.header("content-type") ?? "";
  const isJson = type === "" || JSON_CONTENT_TYPE.test(type);
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
 * Reads every request body in full before anything can answer (Hono caches the bytes for
 * `validate("json", ...)`): an emulator that answers without needing the body (a 401, a 404) must
 * not cut off the gateway while it is still streaming that body in. Read as bytes, not text, since
 * a body may be anything. Malformed JSON is reported by `validate("json", ...)` on routes that
 * take a body, and ignored elsewhere, as FastAPI does.
 */
export function readBodyFirst(): MiddlewareHandler {
  return createMiddleware(async (c, next) => {
    if (c.req.raw.body) await c.req.arrayBuffer();
    await next();
  });
}
