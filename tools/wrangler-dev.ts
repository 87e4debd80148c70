// One way to serve a Worker in-process with wrangler's programmatic API (the same bundling and
// runtime as `npm start`): the load test's own gateway and the gateway bench both use it. The
// emulator Workers it binds run beside it, each its own wrangler dev session, found through a dev
// registry private to this call (so two local runs never reach each other's emulators).
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { emulatorConfig, emulatorLinks, localServices, type EmulatorName } from "./emulator-workers.ts";

export interface WranglerDevOptions {
  /** Absolute path of the wrangler config. */
  readonly config: string;
  readonly env?: string;
  /** Plain-text variables set on top of the config's own. */
  readonly vars: Readonly<Record<string, string>>;
  /** 0 (default): any free port. */
  readonly port?: number;
  /** Overrides of the config's compatibility date and flags. */
  readonly runtime?: { readonly compatibilityDate: string; readonly compatibilityFlags: string[] };
  /** Where the bindings' data (the Durable Objects' SQLite files) goes; wrangler's temporary directory by default. */
  readonly storageDir?: string;
  /** The emulator Workers to run beside it, bound as the services the gateway calls (none by default). */
  readonly emulators?: readonly EmulatorName[];
}

export interface ServedWorker {
  readonly url: URL;
  stop(): Promise<void>;
}

/**
 * Starts the Worker on 127.0.0.1, offline, its storage in a temporary directory (or `storageDir`)
 * that nothing reads afterwards; the Worker's own logs go nowhere.
 */
export async function serveWithWranglerDev(options: WranglerDevOptions): Promise<ServedWorker> {
  process.env.WRANGLER_SEND_METRICS ??= "false";
  // Miniflare would otherwise try to download the Request.cf placeholder: no network is needed.
  process.env.CLOUDFLARE_CF_FETCH_ENABLED ??= "false";
  const { unstable_startWorker } = await import("wrangler");
  const emulators = options.emulators ?? [];
  const registry = emulators.length > 0 ? await mkdtemp(join(tmpdir(), "tollgate-dev-registry-")) : undefined;
  const services = Object.entries(await localServices(emulators)).map(([name, service]) => [name, { type: "service" as const, service }]);
  const vars = Object.entries(options.vars).map(([name, value]) => [name, { type: "plain_text" as const, value }]);
  const dev = (port: number, persist: string | false) => ({
    server: { hostname: "127.0.0.1", port },
    inspector: false,
    // false: counters start empty and nothing touches .wrangler/state.
    persist,
    watch: false,
    // The environment's routes name its deployed hosts; requests keep the local origin.
    inferOriginFromRoutes: false,
    logLevel: "error",
    // The gateway logs a line per denial; the callers' own output is the record.
    structuredLogsHandler: () => undefined,
    registry,
  });
  const started: Array<{ dispose(): Promise<void> }> = [];
  const stop = async () => {
    await Promise.allSettled(started.reverse().map((w) => w.dispose()));
    if (registry) await rm(registry, { recursive: true, force: true });
  };
  type Input = Parameters<typeof unstable_startWorker>[0];
  try {
    for (const name of emulators) {
      const storage = options.storageDir === undefined ? false : join(options.storageDir, name);
      // Its links to the other emulators of this run (EMULATOR_LINKS), found through the same registry.
      const links = Object.entries(await emulatorLinks(name, emulators)).map(([binding, { service, entrypoint }]) => [
        binding,
        { type: "service" as const, service, entrypoint },
      ]);
      const emulator = await unstable_startWorker({
        config: emulatorConfig(name),
        bindings: Object.fromEntries(links),
        ...options.runtime,
        dev: dev(0, storage),
      } as Input);
      started.push(emulator);
      await emulator.ready;
    }
    const worker = await unstable_startWorker({
      config: options.config,
      env: options.env,
      bindings: Object.fromEntries([...vars, ...services]),
      ...options.runtime,
      dev: dev(options.port ?? 0, options.storageDir ?? false),
    } as Input);
    started.push(worker);
    await worker.ready;
    const url = await worker.url;
    return { url: new URL(url.href), stop };
  } catch (error) {
    await stop().catch(() => undefined);
    throw error;
  }
}
