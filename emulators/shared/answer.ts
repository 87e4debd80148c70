import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { ValidationError } from "../../src/http/fastapi-errors.ts";
import type { Refusal, Result } from "./result.ts";

/** FastAPI's error shape: `{"detail": "<message>"}`. */
export function detail(c: Context, status: ContentfulStatusCode, message: string): Response {
  return c.json({ detail: message }, status);
}

/** FastAPI's 422 shape: `{"detail": [{type, loc, msg, input?, ctx?}]}`. */
export function unprocessable(c: Context, errors: readonly ValidationError[]): Response {
  return c.json({ detail: errors }, 422);
}

/** A refusal as FastAPI answers it. */
export function refusal(c: Context, result: Refusal): Response {
  return result.status === 422 ? unprocessable(c, result.detail) : detail(c, result.status, result.detail);
}

/**
 * The one way a store's result becomes a response: a refusal as FastAPI answers it, a value by
 * `respond` (200 with the value as JSON unless told otherwise).
 *
 * @example
 * return answer(c, await store.get(id));
 * return answer(c, await store.create(input), (listener) => c.json(listener, 201));
 */
export function answer<T>(c: Context, result: Result<T>, respond: (value: T) => Response = (value) => c.json(value as object, 200)): Response {
  return result.ok ? respond(result.value) : refusal(c, result);
}

/** One page of a search, with its total, from `offset`. */
export interface Page<T> {
  readonly items: readonly T[];
  readonly total: number;
}

/**
 * A search's page as the real server answers it: the items, `X-Pagination-Total`, and
 * `X-Pagination-Next` (the offset of the next page; absent on the last), which the official
 * client reads (`includePagination`).
 */
export function answerPage<T>(c: Context, offset: number, page: Page<T>): Response {
  c.header("X-Pagination-Total", String(page.total));
  const next = offset + page.items.length;
  if (page.items.length > 0 && next < page.total) c.header("X-Pagination-Next", String(next));
  return c.json(page.items as unknown as object[]);
}
