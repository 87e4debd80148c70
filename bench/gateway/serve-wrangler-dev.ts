// wrangler's unstable_startWorker, as the load test serves the gateway: wrangler's own bundling,
// and its proxy Worker in front (a second workerd per target).
import type { TargetSpec } from "./targets.ts";
import { gatewayRuntime, type Started } from "./worker-runtime.ts";

export async function withWranglerDev(spec: TargetSpec): Promise<Started> {
  const { unstable_startWorker } = await import("wrangler");
  const bindings = Object.fromEntries(Object.entries(spec.vars).map(([k, value]) => [k, { type: "plain_text" as const, value }]));
  const worker = await unstable_startWorker({
    config: spec.config,
    env: spec.env,
    bindings,
    ...(await gatewayRuntime()),
    dev: {
      server: { hostname: "127.0.0.1", port: 0 },
      inspector: false,
      // In memory: counters start empty and nothing touches .wrangler/state.
      persist: false,
      watch: false,
      logLevel: "error",
      structuredLogsHandler: () => undefined,
    },
  } as Parameters<typeof unstable_startWorker>[0]);
  try {
    await worker.ready;
    const url = await worker.url;
    return { url: new URL(url.href), stop: () => worker.dispose() };
  } catch (error) {
    await worker.dispose().catch(() => undefined);
    throw error;
  }
}
