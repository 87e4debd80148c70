import { zValidator } from "@hono/zod-validator";
import type { Context, MiddlewareHandler } from "hono";
import { createMiddleware } from "hono/factory";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { z } from "zod";
import { toValidationErrors, type Location, type ValidationError } from "./fastapi-errors.ts";

const TARGET_LOCATION = { param: "path", query: "query", json: "body", header: "header" } as const satisfies Record<string, Location>;

/** FastAPI's 4xx shape: `{"detail": "<message>"}`. */
export function detail(c: Context, status: ContentfulStatusCode, message: string): Response {
  return c.json({ detail: message }, status);
}

/** FastAPI's 422 shape: `{"detail": [{type, loc, msg, input?, ctx?}]}`. */
export function unprocessable(c: Context, errors: readonly ValidationError[]): Response {
  return c.json({ detail: errors }, 422);
}

/**
 * Validates one part of the request with zod and answers violations as FastAPI would (422 with
 * `loc` starting "path", "query", "body" or "header"). Handlers read the parsed value with
 * `c.req.valid(target)`. Bodies are read as FastAPI reads them (see `readJsonBody`).
 *
 * @example
 * app.get("/v2/listeners/:listener_id", validate("param", z.object({ listener_id: z.uuid() })), handler)
 */
export function validate<S extends z.ZodType>(target: "json", schema: S): MiddlewareHandler<any, string, { in: { json: z.input<S> }; out: { json: z.output<S> } }>;
export function validate<T extends "param" | "query" | "header", S extends z.ZodType>(target: T, schema: S): ReturnType<typeof zValidator<S, T, any, string>>;
export function validate(target: keyof typeof TARGET_LOCATION, schema: z.ZodType): MiddlewareHandler {
  if (target === "json") return validateJsonBody(schema);
  return zValidator(target, schema, (result, c) => {
    if (!result.success) return unprocessable(c, toValidationErrors(result.error.issues, TARGET_LOCATION[target], result.data));
  });
}

function validateJsonBody(schema: z.ZodType): MiddlewareHandler {
  return createMiddleware(async (c, next) => {
    const body = await readJsonBody(c);
    if (!body.ok) return unprocessable(c, [body.error]);
    const result = await schema.safeParseAsync(body.value);
    if (!result.success) return unprocessable(c, toValidationErrors(result.error.issues, "body", body.value));
    c.req.addValidatedData("json", result.data as object);
    await next();
  });
}

/**
 * The body as FastAPI reads it: parsed as JSON when the content type is JSON or absent, kept as
 * text otherwise (so a model then fails with a type error); an empty body is "missing". Always
 * reads the whole body, so a streaming sender is never cut off mid-request.
 */
export async function readJsonBody(c: Context): Promise<{ ok: true; value: unknown } | { ok: false; error: ValidationError }> {
  const text = await c.req.text();
  if (text.trim() === "") return { ok: true, value: undefined };
  const type = c.req.header("content-type") ?? "";
  if (type !== "" && !/^application\/([\w.-]+\+)?json\b/i.test(type)) return { ok: true, value: text };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    return {
      ok: false,
      error: { type: "json_invalid", loc: ["body", 0], msg: "JSON decode error", ctx: { error: error instanceof Error ? error.message : String(error) } },
    };
  }
}

/**
 * Reads every request body in full before routing (Hono caches the text for
 * `validate("json", ...)`): an emulator that answers without needing the body must not cut off the
 * gateway while it is still streaming that body in. Malformed JSON is reported by
 * `validate("json", ...)` on routes that take a body, and ignored elsewhere, as FastAPI does.
 */
export function jsonBody(): MiddlewareHandler {
  return createMiddleware(async (c, next) => {
    if (c.req.raw.body) await c.req.text();
    await next();
  });
}
