import type { Context } from "hono";
import { GatewayError } from "../http/gateway-error.ts";

/**
 * The JSON body of an admin request. Only `application/json` is read: a cross-site HTML form
 * cannot send it without a preflight the admin API never grants. Malformed JSON is a 422 like
 * any other refusal, in FastAPI's shape.
 */
export async function jsonBody(c: Context): Promise<unknown> {
  const type = c.req.header("content-type") ?? "";
  if (!/^application\/json\s*(;|$)/i.test(type)) {
    throw new GatewayError("unsupported-media-type", "Send the body as application/json.");
  }
  try {
    return await c.req.json();
  } catch {
    throw new GatewayError("validation", [{ loc: ["body"], msg: "JSON decode error", type: "json_invalid" }]);
  }
}
