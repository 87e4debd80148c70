import { HTTPException } from "hono/http-exception";
import { GatewayError, kindShape } from "./gateway-error.ts";
import { problemResponse } from "./problem.ts";
import { SettingError } from "./setting-error.ts";

/**
 * The one place errors become responses, for the gateway and the admin API alike: a GatewayError
 * in its kind's shape (gateway-error.ts), a SettingError as a problem naming the setting, an
 * HTTPException thrown by a Hono helper as it is, anything else as a 500 that names nothing
 * (logged, with the path when known). Never a stack trace.
 *
 * @example
 * app.onError((error, c) => renderError(error, c.get("request")?.path));
 * return renderError(new GatewayError("not-found", "Not Found")); // where a response is returned, not thrown
 */
export function renderError(error: Error, path?: string): Response {
  if (error instanceof GatewayError) return answer(error);
  // A misconfiguration was logged once when it was found (src/gateway/settings.ts); anything else, every time.
  if (error instanceof SettingError) {
    return answer(
      error.status === 503
        ? new GatewayError("not-ready", error.message, { headers: { "retry-after": "60" } })
        : new GatewayError("misconfigured", error.message),
    );
  }
  if (error instanceof HTTPException) {
    // None of ours: a helper's carries its response, or only a message, rendered in the API's shape.
    return error.res ?? Response.json({ detail: error.message || "Bad request" }, { status: error.status });
  }
  console.log(JSON.stringify({ event: "gateway_error", error: String(error), path }));
  return answer(new GatewayError("internal", "The gateway failed to handle this request."));
}

function answer(error: GatewayError): Response {
  const shape = kindShape(error.kind);
  const { detail } = error;
  // A problem's detail is always a string (GatewayError's constructor); only validation's is a list.
  if ("title" in shape && typeof detail === "string") {
    const type = "type" in shape ? { type: shape.type } : {};
    return problemResponse({ ...type, title: shape.title, status: shape.status, detail, ...error.extensions }, error.headers);
  }
  return Response.json({ detail }, { status: shape.status, headers: error.headers });
}
