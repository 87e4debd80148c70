import { createEmulatorApp } from "../shared/app.ts";
import { authenticate, type ControlPlaneEnv } from "./auth.ts";
import { deploymentRoutes } from "./deployments/routes.ts";
import { emulatorRoutes } from "./emulator-routes.ts";
import { integrationRoutes } from "./integrations/routes.ts";
import { listenerRoutes } from "./listeners/routes.ts";
import { oauthRoutes } from "./oauth/routes.ts";
import { templateRoutes } from "./templates/routes.ts";

/**
 * The control-plane emulator: `/v2/listeners`, `/v2/sandboxes/templates`, `/v2/deployments`
 * (and their revisions), plus `/v2/_emulator/...` switches. FastAPI-shaped answers throughout
 * (the shared emulator app): `{"detail": "..."}` for 4xx, `{"detail": [{loc, msg, type}]}` for 422.
 */
export function createControlPlane() {
  // The body is read before anything may refuse the request (even a 401): see the shared app.
  const app = createEmulatorApp<ControlPlaneEnv>("control_plane");
  app.route("/v2/auth", oauthRoutes); // first: its redirects carry no credential (oauth/routes.ts)
  app.use("/v2/*", authenticate());
  app.route("/v2/listeners", listenerRoutes);
  app.route("/v2/sandboxes/templates", templateRoutes);
  app.route("/v2/deployments", deploymentRoutes);
  app.route("/v2/_emulator", emulatorRoutes);
  app.route("/v1/integrations", integrationRoutes); // GitHub installations; authenticates itself (below /v1)
  return app;
}
