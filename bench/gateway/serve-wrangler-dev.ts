// wrangler's unstable_startWorker, as the load test serves the gateway: wrangler's own bundling,
// and its proxy Worker in front (a second workerd per target).
import { serveWithWranglerDev } from "../../tools/wrangler-dev.ts";
import type { TargetSpec } from "./targets.ts";
import { gatewayRuntime, type Started } from "./worker-runtime.ts";

/** @param storageDir where the Durable Objects' SQLite files go (wrangler's temporary directory when undefined) */
export async function withWranglerDev(spec: TargetSpec, storageDir?: string): Promise<Started> {
  return serveWithWranglerDev({
    config: spec.config,
    env: spec.env,
    vars: spec.vars,
    emulators: spec.upstreams,
    runtime: await gatewayRuntime(),
    ...(storageDir !== undefined && { storageDir }),
  });
}
