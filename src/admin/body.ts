import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import { problemResponse } from "../http/problem.ts";

/**
 * The JSON body of an admin request. Only `application/json` is read: a cross-site HTML form
 * cannot send it without a preflight the admin API never grants. Malformed JSON is a 422 like
 * any other refusal, in FastAPI's shape.
 */
export async function jsonBody(c: Context): Promise<unknown> {
  const type = c.req.header("content-type") ?? "";
  if (!/^application\/json\s*(;|$)/i.test(type)) {
    throw new HTTPException(415, { res: problemResponse({ title: "Unsupported Media Type", status: 415, detail: "Send the body as application/json." }) });
  }
  try {
    return await c.req.json();
  } catch {
    throw new HTTPException(422, { res: Response.json({ detail: [{ loc: ["body"], msg: "JSON decode error", type: "json_invalid" }] }, { status: 422 }) });
  }
}

/** 422 `{detail: [{loc, msg, type}]}`: nothing was changed. */
export function unprocessable(detail: readonly { loc: ReadonlyArray<string | number>; msg: string; type: string }[]): Response {
  return Response.json({ detail }, { status: 422 });
}
