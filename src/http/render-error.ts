import { HTTPException } from "hono/http-exception";
import { problemResponse } from "./problem.ts";
import { SettingError } from "./setting-error.ts";

/**
 * The one place errors become responses, for the gateway and the admin API alike: an
 * HTTPException as it is, a SettingError as a problem naming the setting, anything else as a 500
 * that names nothing (logged, with the path when known). Never a stack trace.
 */
export function renderError(error: Error, path?: string): Response {
  if (error instanceof HTTPException) {
    // Ours carry their response; one thrown by a helper carries only a message, rendered in the
    // API's shape.
    return error.res ?? Response.json({ detail: error.message || "Bad request" }, { status: error.status });
  }
  // A misconfiguration was logged once when it was found (src/gateway/settings.ts); anything else, every time.
  if (error instanceof SettingError) {
    const title = error.status === 503 ? "Gateway not ready" : "Gateway misconfigured";
    return problemResponse({ title, status: error.status, detail: error.message }, error.status === 503 ? { "retry-after": "60" } : undefined);
  }
  console.log(JSON.stringify({ event: "gateway_error", error: String(error), path }));
  return Response.json({ detail: "The gateway failed to handle this request." }, { status: 500 });
}
