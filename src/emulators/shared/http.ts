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
 * `c.req.valid(target)`.
 *
 * @example
 * app.get("/v2/listeners/:listener_id", validate("param", z.object({ listener_id: z.uuid() })), handler)
 */
export function validate<T extends keyof typeof TARGET_LOCATION, S extends z.ZodType>(target: T, schema: S) {
  return zValidator(target, schema, (result, c) => {
    if (!result.success) return unprocessable(c, toValidationErrors(result.error.issues, TARGET_LOCATION[target], result.data));
  });
}

/**
 * Reads a JSON body up front so malformed JSON is a 422 `json_invalid` (as FastAPI answers), not
 * a 400 from the validator. Hono caches the parsed body for `validate("json", ...)`.
 */
export function jsonBody(): MiddlewareHandler {
  return createMiddleware(async (c, next) => {
    const type = c.req.header("content-type") ?? "";
    if (/^application\/([\w.-]+\+)?json\b/i.test(type)) {
      try {
        await c.req.json();
      } catch (error) {
        return unprocessable(c, [
          { type: "json_invalid", loc: ["body", 0], msg: "JSON decode error", ctx: { error: error instanceof Error ? error.message : String(error) } },
        ]);
      }
    }
    await next();
  });
}
