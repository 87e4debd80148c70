// K gateway isolates in one Miniflare, sharing one owner's Durable Objects: the built bundle
// (bench/gateway/build.ts), configured as wrangler reads wrangler.toml [env.us], served as
// bench/gateway/serve-miniflare.ts serves it, with a wrapper module per isolate
// (wrapper-source.ts).
import { copyFile, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Json, LegacyWorkerOptions, Miniflare } from "miniflare";
import { emulatorWorkerOptions, localServices } from "../../tools/emulator-workers.ts";
import { buildBundle, type Bundle } from "../gateway/build.ts";
import { moduleType } from "../gateway/serve-miniflare.ts";
import { TARGET_SPECS } from "../gateway/targets.ts";
import { gatewayRuntime, quietEnvironment } from "../gateway/worker-runtime.ts";
import { LOCAL_BINDINGS } from "../../tools/local-bindings.ts";
import { localSecret } from "../../tools/local-secret.ts";
import type { Rtt } from "../edge/rtt.ts";
import { CONTROL_PREFIX, entryCopyName, isolateWrapperSource, ownerWrapperSource } from "./wrapper-source.ts";

const SPEC = TARGET_SPECS.gateway;
/** Named as wrangler names [env.us]: the isolates' bindings point at it by this name. */
export const OWNER = "tollgate-us";
/** Copies of the entry per isolate: the original and one fresh copy for an eviction. */
const COPIES = 2;
/** The Durable Object classes the gateway's isolates bind (src/env.ts), all held by the owner. */
const GATEWAY_OBJECTS = ["COUNTERS", "OVERRIDES", "METRICS"] as const;

export const ADMIN_TOKEN = "tollgate-accuracy-admin-token";

export interface ClusterSettings {
  readonly isolates: number;
  readonly timeScale: number;
  /** How long an isolate waits for the counter object before its local window decides. */
  readonly counterTimeoutMs: number;
  /** How old an isolate's copy of the overrides may get (the gateway's minimum is 100). */
  readonly overridesRefreshMs: number;
  /** The round trip of every call from an isolate to an object (none when absent); `/rtt` changes it. */
  readonly rtt?: Rtt;
}

/** The variables of every worker: `npm start`'s, the development settings, and the admin API. */
export function clusterVars(settings: ClusterSettings): Record<string, string> {
  return {
    ...LOCAL_BINDINGS,
    IDENTITY_HMAC_SECRET: localSecret(),
    DEV_SETTINGS: "allow",
    TIME_SCALE: String(settings.timeScale),
    ADMIN_TOKEN,
    OVERRIDES_REFRESH_MS: String(settings.overridesRefreshMs),
    COUNTER_TIMEOUT_MS: String(settings.counterTimeoutMs),
    // No decision log lines: nobody reads them here, and each would cost the shared core time.
    DECISION_LOG_SAMPLE: "0",
  };
}

type Fetcher = Awaited<ReturnType<Miniflare["getWorker"]>>;

export interface Cluster {
  readonly isolates: number;
  /** A request to the gateway in isolate `i`. */
  fetch(i: number, path: string, init?: RequestInit): Promise<Response>;
  /** A control request to isolate `i`'s wrapper (wrapper-source.ts). */
  control(i: number, path: string, body?: unknown): Promise<Record<string, unknown>>;
  /** Restart the counter object `object` (its instance is aborted; it reloads from storage). */
  restartObject(object: string): Promise<{ error: string }>;
  /** A request to the owner worker's own gateway (admin API reads, e.g. counter inspection). */
  owner(path: string, init?: RequestInit): Promise<Response>;
  stop(): Promise<void>;
}

/** The built bundle, once per run: every cluster of the run serves the same build. */
export interface Build {
  readonly dir: string;
  readonly bundle: Bundle;
  /** The emulator Workers the gateway binds as its upstreams, built as they deploy. */
  readonly emulators: readonly LegacyWorkerOptions[];
  cleanup(): Promise<void>;
}

export async function buildGateway(): Promise<Build> {
  quietEnvironment();
  const dir = await mkdtemp(join(tmpdir(), "tollgate-accuracy-"));
  const bundle = await buildBundle(SPEC, "src/index.ts", dir);
  // Fresh module instances for evictions: the same code under other names.
  for (let n = 1; n < COPIES; n++) await copyFile(bundle.entry, join(dir, entryCopyName(n)));
  await writeFile(join(dir, "owner.js"), ownerWrapperSource());
  const emulators = await emulatorWorkerOptions(join(dir, "emulators"), SPEC.upstreams);
  return { dir, bundle, emulators, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

export async function startCluster(build: Build, settings: ClusterSettings): Promise<Cluster> {
  const { unstable_getMiniflareWorkerOptions } = await import("wrangler");
  const { Miniflare, convertV4MiniflareOptions } = await import("miniflare");
  const { workerOptions } = unstable_getMiniflareWorkerOptions(SPEC.config, SPEC.env);
  const { modulesRules = [], rootPath: _root, ...worker } = workerOptions;
  const others = await Promise.all(build.bundle.others.map(async (path) => ({ type: await moduleType(modulesRules, path), path })));
  const entry = (n: number) => ({ type: "ESModule" as const, path: join(build.dir, entryCopyName(n)) });
  const bindings = { ...(worker.bindings as Record<string, Json> | undefined), ...clusterVars(settings) };
  // Every isolate calls the same emulator Workers, as npm start's gateway does.
  const serviceBindings = Object.fromEntries(Object.entries(await localServices(SPEC.upstreams)).map(([binding, name]) => [binding, { name }]));
  const runtime = await gatewayRuntime();

  const isolateNames = Array.from({ length: settings.isolates }, (_, i) => `isolate-${i}`);
  for (const name of isolateNames) await writeFile(join(build.dir, `${name}.js`), isolateWrapperSource(name, COPIES, settings.rtt));

  // The isolates' objects are the owner's (scriptName), so all K count on one set of counters.
  const remoteObjects = Object.fromEntries(
    GATEWAY_OBJECTS.map((binding) => {
      const own = (worker.durableObjects as Record<string, { className: string }> | undefined)?.[binding];
      if (!own) throw new Error(`wrangler.toml [env.us] binds no ${binding}`);
      return [binding, { className: own.className, scriptName: OWNER }];
    }),
  );
  const mf = new Miniflare(
    convertV4MiniflareOptions({
      host: "127.0.0.1",
      port: 0,
      logRequests: false,
      handleStructuredLogs: () => undefined,
      workers: [
        {
          ...worker,
          ...runtime,
          name: OWNER,
          // The wrapper first: a worker's first module is its main module.
          modules: [{ type: "ESModule" as const, path: join(build.dir, "owner.js") }, entry(0), ...others],
          modulesRoot: build.dir,
          bindings,
          serviceBindings,
        },
        ...isolateNames.map((name) => ({
          ...worker,
          ...runtime,
          name,
          modules: [{ type: "ESModule" as const, path: join(build.dir, `${name}.js`) }, ...Array.from({ length: COPIES }, (_, n) => entry(n)), ...others],
          modulesRoot: build.dir,
          bindings,
          serviceBindings,
          durableObjects: remoteObjects,
        })),
        ...build.emulators,
      ],
    }),
  );
  try {
    await mf.ready;
  } catch (error) {
    await mf.dispose().catch(() => undefined);
    throw error;
  }
  const workers: Fetcher[] = await Promise.all(isolateNames.map((name) => mf.getWorker(name)));
  const ownerWorker = await mf.getWorker(OWNER);
  // The admin API answers only on its own host (ADMIN_HOSTS, docs/admin.md).
  const url = (path: string) => `http://${path.startsWith("/_tollgate/") ? LOCAL_BINDINGS.ADMIN_HOSTS : "gateway.test"}${path}`;
  const isolate = (i: number): Fetcher => {
    const w = workers[i];
    if (!w) throw new Error(`no isolate ${i} (the cluster has ${workers.length})`);
    return w;
  };
  const json = async (response: Response) => {
    const text = await response.text();
    try {
      return JSON.parse(text) as Record<string, unknown>;
    } catch {
      throw new Error(`expected JSON, got ${response.status}: ${text.slice(0, 200)}`);
    }
  };
  return {
    isolates: settings.isolates,
    fetch: (i, path, init) => isolate(i).fetch(url(path), init as never) as unknown as Promise<Response>,
    control: async (i, path, body) =>
      json(
        (await isolate(i).fetch(
          url(`${CONTROL_PREFIX}${path}`),
          body === undefined ? {} : { method: "POST", body: JSON.stringify(body) },
        )) as unknown as Response,
      ),
    restartObject: async (object) =>
      (await json(
        (await ownerWorker.fetch(url(`${CONTROL_PREFIX}/restart`), { method: "POST", body: JSON.stringify({ object }) })) as unknown as Response,
      )) as { error: string },
    owner: (path, init) => ownerWorker.fetch(url(path), init as never) as unknown as Promise<Response>,
    stop: () => mf.dispose(),
  };
}
