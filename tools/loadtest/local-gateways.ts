// The load test's own target: the gateway as it deploys (the `wrangler deploy --dry-run` bundle) on
// Miniflare, as bench:gateway serves it (bench/gateway/serve-miniflare.ts), with the emulator
// Workers bound as its upstreams, one workerd and nothing else in the request path. The gateway
// learns its time scale from one variable (TIME_SCALE, development only), so every (region, time
// scale) the plan asks for is a gateway Worker of its own in that one Miniflare, each on its own
// socket straight to the Worker (no Miniflare entry worker: CF-Connecting-IP arrives as the tool
// sets it per identity, as the local edge sets it from the socket). Counters start empty and live
// in a temporary directory in RAM, removed at the end.
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { Json, LegacyWorkerOptions } from "miniflare";
import { buildBundle, type Bundle } from "../../bench/gateway/build.ts";
import { moduleType } from "../../bench/gateway/serve-miniflare.ts";
import { gatewayRuntime, quietEnvironment } from "../../bench/gateway/worker-runtime.ts";
import type { Algorithm } from "../../src/core/limiter/index.ts";
import type { Region } from "../../src/core/rules/schema.ts";
import { EMULATOR_NAMES, emulatorWorkerOptions, localServices } from "../emulator-workers.ts";
import { LOCAL_BINDINGS } from "../local-bindings.ts";
import { localSecret } from "../local-secret.ts";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const CONFIG = resolve(ROOT, "wrangler.toml");

/** One gateway the run needs: a region's limits at one time scale. */
export interface GatewayKey {
  readonly region: Region;
  readonly timeScale: number;
}

export const gatewayKeyOf = (k: GatewayKey): string => `${k.region}@${k.timeScale}`;

export interface LocalGateways {
  /** Each gateway's base URL, by gatewayKeyOf. */
  readonly urls: ReadonlyMap<string, URL>;
  stop(): Promise<void>;
}

/** The variables a local load-test gateway runs with, on top of its region's environment. */
export function localBindings(options: { timeScale: number; algorithm?: Algorithm }): Record<string, string> {
  return {
    ...LOCAL_BINDINGS,
    IDENTITY_HMAC_SECRET: localSecret(),
    // The us and eu environments refuse the development settings; this local gateway allows them.
    DEV_SETTINGS: "allow",
    TIME_SCALE: String(options.timeScale),
    LIMITER_ALGORITHM: options.algorithm ?? "sliding-window",
  };
}

/** A Worker name for one gateway: "tollgate-loadtest-us-0_5". */
export const workerNameOf = (k: GatewayKey): string => `tollgate-loadtest-${k.region}-${String(k.timeScale).replace(/[^0-9a-z]/gi, "_")}`;

/** The built gateway and emulators, ready to be served at any set of (region, time scale). */
export interface PreparedGateways {
  serve(gateways: readonly GatewayKey[]): Promise<LocalGateways>;
  /** Removes the build and the counters' directory (after the last serve's stop). */
  dispose(): Promise<void>;
}

/**
 * Builds the gateway (once: the regions differ in their variables, not their code) and the
 * emulators; each `serve` runs the requested gateways side by side in one Miniflare.
 */
export async function prepareLocalGateways(options: { algorithm?: Algorithm; port?: number } = {}): Promise<PreparedGateways> {
  quietEnvironment();
  const work = await mkdtemp(join(tmpdir(), "tollgate-loadtest-"));
  const dispose = () => rm(work, { recursive: true, force: true }).then(() => undefined);
  try {
    const { unstable_getMiniflareWorkerOptions, unstable_readConfig } = await import("wrangler");
    const { main } = unstable_readConfig({ config: CONFIG, env: "us" });
    if (!main) throw new Error(`${CONFIG} names no main module`);
    const [bundle, emulators, services, runtime] = await Promise.all([
      buildBundle({ name: "gateway", config: CONFIG, env: "us", vars: {}, upstreams: EMULATOR_NAMES }, main, join(work, "gateway")),
      emulatorWorkerOptions(join(work, "emulators")),
      localServices(),
      gatewayRuntime(),
    ]);
    const modules = async (rules: Parameters<typeof moduleType>[0], b: Bundle) => [
      { type: "ESModule" as const, path: b.entry },
      ...(await Promise.all(b.others.map(async (path) => ({ type: await moduleType(rules, path), path })))),
    ];
    const base = options.port ?? 0;
    const serve = async (gateways: readonly GatewayKey[]): Promise<LocalGateways> => {
      const keys = [...new Map(gateways.map((k) => [gatewayKeyOf(k), k])).values()];
      if (keys.length === 0) throw new Error("no gateway to start");
      // Counters start empty in RAM, and go with the gateways.
      const storage = await mkdtemp(join(existsSync("/dev/shm") ? "/dev/shm" : tmpdir(), "tollgate-loadtest-state-"));
      const gatewayWorkers = await Promise.all(
        keys.map(async (key, i) => {
          const { workerOptions } = unstable_getMiniflareWorkerOptions(CONFIG, key.region);
          const { modulesRules = [], rootPath: _root, ...worker } = workerOptions;
          return {
            ...worker,
            ...runtime,
            name: workerNameOf(key),
            modules: await modules(modulesRules, bundle),
            modulesRoot: dirname(bundle.entry),
            bindings: {
              ...(worker.bindings as Record<string, Json> | undefined),
              ...localBindings({ timeScale: key.timeScale, algorithm: options.algorithm }),
            },
            serviceBindings: {
              ...(worker.serviceBindings as Record<string, unknown> | undefined),
              ...Object.fromEntries(Object.entries(services).map(([binding, name]) => [binding, { name }])),
            } as LegacyWorkerOptions["serviceBindings"],
            unsafeDirectSockets: [{ host: "127.0.0.1", port: base === 0 ? 0 : base + 1 + i }],
          };
        }),
      );
      const { Miniflare, convertV4MiniflareOptions } = await import("miniflare");
      const mf = new Miniflare(
        convertV4MiniflareOptions({
          host: "127.0.0.1",
          port: base,
          resourcePersistencePath: storage,
          // The gateway logs a line per denial; the tool's own summary is the record.
          logRequests: false,
          handleStructuredLogs: () => undefined,
          workers: [...gatewayWorkers, ...emulators],
        }),
      );
      const stop = async () => {
        await mf.dispose().catch(() => undefined);
        await rm(storage, { recursive: true, force: true });
      };
      try {
        await mf.ready;
        const urls = new Map<string, URL>();
        for (const key of keys) urls.set(gatewayKeyOf(key), await mf.unsafeGetDirectURL(workerNameOf(key)));
        return { urls, stop };
      } catch (error) {
        await stop();
        throw error;
      }
    };
    return { serve, dispose };
  } catch (error) {
    await dispose();
    throw error;
  }
}
