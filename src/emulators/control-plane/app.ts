import { Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import { jsonBody } from "../shared/http.ts";
import { authenticate, type ControlPlaneEnv } from "./auth.ts";
import { deploymentRoutes } from "./deployments/routes.ts";
import { emulatorRoutes } from "./emulator-routes.ts";
import { listenerRoutes } from "./listeners/routes.ts";
import { templateRoutes } from "./templates/routes.ts";

/**
 * The control-plane emulator: `/v2/listeners`, `/v2/sandboxes/templates`, `/v2/deployments`
 * (and their revisions), plus `/v2/_emulator/...` switches. FastAPI-shaped answers throughout:
 * `{"detail": "..."}` for 4xx, `{"detail": [{loc, msg, type}]}` for 422.
 */
export function createControlPlane() {
  const app = new Hono<ControlPlaneEnv>();
  // The body is read before anything may refuse the request (even a 401), so the gateway is never
  // cut off while it is still streaming the body in (see jsonBody).
  app.use("*", jsonBody());
  app.use("/v2/*", authenticate());
  app.route("/v2/listeners", listenerRoutes);
  app.route("/v2/sandboxes/templates", templateRoutes);
  app.route("/v2/deployments", deploymentRoutes);
  app.route("/v2/_emulator", emulatorRoutes);
  app.notFound((c) => c.json({ detail: "Not Found" }, 404));
  app.onError((error, c) => {
    if (error instanceof HTTPException) return error.getResponse();
    console.log(JSON.stringify({ event: "control_plane_error", error: String(error), path: c.req.path }));
    return c.json({ detail: "Internal Server Error" }, 500);
  });
  return app;
}
