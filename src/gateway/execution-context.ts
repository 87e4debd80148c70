import type { Context } from "hono";

/** The request's execution context, if it has one (a bare `app.fetch` in a test has none). */
export function executionContext(c: Context): ExecutionContext | undefined {
  try {
    return c.executionCtx as ExecutionContext;
  } catch {
    return undefined;
  }
}

/** Keeps work going after the response: a request's `waitUntil`. */
export type Background = (work: Promise<unknown>) => void;

/** The request's `waitUntil`, for work after the response, if it has an execution context. */
export function backgroundOf(c: Context): Background | undefined {
  const ctx = executionContext(c);
  return ctx && ((work) => ctx.waitUntil(work));
}
