import { zValidator } from "@hono/zod-validator";
import type { MiddlewareHandler } from "hono";
import { createMiddleware } from "hono/factory";
import type { z } from "zod";
import { detail, unprocessable } from "./answer.ts";
import { toValidationErrors, type Location } from "../../src/http/fastapi-errors.ts";
import { readJsonBody } from "./request-body.ts";

const TARGET_LOCATION = { param: "path", query: "query", json: "body", header: "header" } as const satisfies Record<string, Location>;

/**
 * Validates one part of the request with zod and answers violations as FastAPI would (422 with
 * `loc` starting "path", "query", "body" or "header"). Handlers read the parsed value with
 * `c.req.valid(target)`. Bodies are read as FastAPI reads them (see `readJsonBody`).
 *
 * @example
 * app.get("/v2/listeners/:listener_id", validate("param", z.object({ listener_id: uuid() })), handler)
 */
export function validate<S extends z.ZodType>(
  target: "json",
  schema: S,
): MiddlewareHandler<any, string, { in: { json: z.input<S> }; out: { json: z.output<S> } }>;
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
    if (!body.ok) return body.status === 422 ? unprocessable(c, body.detail) : detail(c, body.status, body.detail);
    const result = await schema.safeParseAsync(body.value);
    if (!result.success) return unprocessable(c, toValidationErrors(result.error.issues, "body", body.value));
    c.req.addValidatedData("json", result.data as object);
    await next();
  });
}
