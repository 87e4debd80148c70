import { WorkerEntrypoint } from "cloudflare:workers";
import type { ControlPlaneBindings } from "./env.ts";
import { createControlPlane } from "./app.ts";

const app = createControlPlane();

/** The control plane as a service: bound to the gateway as CONTROL_PLANE (wrangler.toml). */
export class ControlPlaneEmulator extends WorkerEntrypoint<ControlPlaneBindings> {
  override fetch(request: Request): Response | Promise<Response> {
    return app.fetch(request, this.env, this.ctx);
  }
}
