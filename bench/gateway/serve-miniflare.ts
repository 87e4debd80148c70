// The lowest-overhead local serving: Miniflare's API on the `wrangler deploy --dry-run` bundle, one
// workerd and nothing else in the request path, configured exactly as wrangler reads the config.
import { basename, dirname } from "node:path";
import type { Json, LegacyWorkerOptions, V4ModuleRule, V4ModuleRuleType } from "miniflare";
import { localServices } from "../../tools/emulator-workers.ts";
import type { Bundle } from "./build.ts";
import type { TargetSpec } from "./targets.ts";
import { gatewayRuntime, type Started } from "./worker-runtime.ts";

/**
 * The type of a further module of the bundle (a text, data or wasm import), by the config's
 * module rules: wrangler matched the same rules against the same (hashed) file name to bundle it.
 */
export async function moduleType(rules: readonly V4ModuleRule[], path: string): Promise<V4ModuleRuleType> {
  const { compileModuleRules } = await import("miniflare");
  const name = basename(path);
  for (const rule of compileModuleRules([...rules])) {
    const test = (re: RegExp) => ((re.lastIndex = 0), re.test(name));
    if (rule.include.include.some(test) && !rule.include.exclude.some(test)) return rule.type;
  }
  throw new Error(`${path}: no module rule of the config says what this bundled module is`);
}

/**
 * @param options.inspectorPort where workerd's inspector listens (a CPU profile); none when undefined
 * @param options.storageDir where the Durable Objects' SQLite files go (Miniflare's own temporary
 *   directory when undefined)
 * @param options.emulators the target's upstreams, built (tools/emulator-workers.ts): run in
 *   the same Miniflare and bound as the services `spec.upstreams` names
 */
export async function withMiniflare(
  spec: TargetSpec,
  bundle: Bundle,
  options: { inspectorPort?: number; storageDir?: string; emulators?: readonly LegacyWorkerOptions[] } = {},
): Promise<Started> {
  const { inspectorPort, storageDir, emulators = [] } = options;
  const services = Object.fromEntries(Object.entries(await localServices(spec.upstreams)).map(([binding, name]) => [binding, { name }]));
  const { unstable_getMiniflareWorkerOptions, unstable_readConfig } = await import("wrangler");
  const { Miniflare, convertV4MiniflareOptions } = await import("miniflare");
  // The bindings, Durable Objects and service bindings exactly as wrangler reads the config.
  const { workerOptions } = unstable_getMiniflareWorkerOptions(spec.config, spec.env);
  const { name } = unstable_readConfig({ config: spec.config, env: spec.env });
  // Miniflare 5 no longer discovers modules: the bundle's modules are listed explicitly, typed
  // by the config's rules, so the rules and root path wrangler returns have nothing left to do.
  const { modulesRules = [], rootPath: _root, ...worker } = workerOptions;
  const modules = [
    { type: "ESModule" as const, path: bundle.entry },
    ...(await Promise.all(bundle.others.map(async (path) => ({ type: await moduleType(modulesRules, path), path })))),
  ];
  const mf = new Miniflare(
    convertV4MiniflareOptions({
      host: "127.0.0.1",
      port: 0,
      ...(inspectorPort !== undefined && { inspectorPort }),
      ...(storageDir !== undefined && { resourcePersistencePath: storageDir }),
      // No per-request log line through Node, and the gateway's denial logs go nowhere: the
      // bench's table is the record, and neither may cost the client's core anything.
      logRequests: false,
      handleStructuredLogs: () => undefined,
      workers: [
        {
          ...worker,
          ...(await gatewayRuntime()),
          name,
          modules,
          // Module names are paths relative to this; the bundle lives outside the project.
          modulesRoot: dirname(bundle.entry),
          bindings: { ...(worker.bindings as Record<string, Json> | undefined), ...spec.vars },
          serviceBindings: { ...(worker.serviceBindings as Record<string, unknown> | undefined), ...services } as LegacyWorkerOptions["serviceBindings"],
        },
        ...emulators,
      ],
    }),
  );
  try {
    const url = await mf.ready;
    return { url: new URL(url.href), stop: () => mf.dispose() };
  } catch (error) {
    await mf.dispose().catch(() => undefined);
    throw error;
  }
}
