import type { Context } from "hono";
import { detail } from "../shared/http.ts";
import type { StoreResult } from "./store-result.ts";

/**
 * Turns a store's answer into the response: a refusal becomes FastAPI's `{"detail": "..."}` with
 * its status, a value goes to `respond`.
 *
 * @example
 * return answer(c, await workspaceOf(c).listeners().get(ws, id), (listener) => c.json(listener, 200));
 */
export function answer<T>(c: Context, result: StoreResult<T>, respond: (value: T) => Response): Response {
  return result.ok ? respond(result.value) : detail(c, result.status, result.detail);
}
