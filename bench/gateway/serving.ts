// Serves one target on a free port, all three the same way (serve-miniflare.ts or
// serve-wrangler-dev.ts), and names the workerd processes it runs, for their CPU time.
import { join } from "node:path";
import type { Serving } from "./args.ts";
import { emulatorWorkerOptions } from "../../tools/emulator-workers.ts";
import { buildBundle, type Bundle } from "./build.ts";
import { newWorkerdProcesses } from "./processes.ts";
import { withMiniflare } from "./serve-miniflare.ts";
import { withWranglerDev } from "./serve-wrangler-dev.ts";
import type { TargetSpec } from "./targets.ts";
import type { TargetName } from "./target-names.ts";
import { quietEnvironment, type Started } from "./worker-runtime.ts";

export interface RunningTarget {
  readonly name: TargetName;
  readonly url: URL;
  /** The workerd processes serving it: their CPU time is the server's. */
  readonly pids: readonly number[];
  stop(): Promise<void>;
}

/** A target ready to start: bundled already where the serving needs a bundle. */
export interface PreparedTarget {
  readonly spec: TargetSpec;
  /** The dry run's bundle (miniflare serving): its source map names the profiler's frames (profile.ts). */
  readonly bundle: Bundle | undefined;
  start(): Promise<RunningTarget>;
}

/**
 * Bundles (miniflare serving) without starting, so several targets can be bundled at once and
 * then started one at a time: the workerd processes that appear during a start are that target's.
 *
 * @param workdir a directory this call may write the bundle into
 * @param storageDir where the target's Durable Objects keep their SQLite files (the serving's
 *   own temporary directory when undefined)
 * @param options.inspectorPort where workerd's inspector listens (miniflare serving only: the
 *   CPU profile, profile.ts)
 */
export async function prepareTarget(
  spec: TargetSpec,
  serving: Serving,
  workdir: string,
  storageDir?: string,
  options: { readonly inspectorPort?: number } = {},
): Promise<PreparedTarget> {
  quietEnvironment();
  const { unstable_readConfig } = await import("wrangler");
  const { main } = unstable_readConfig({ config: spec.config, env: spec.env });
  if (!main) throw new Error(`${spec.config} names no main module`);
  const bundle = serving === "miniflare" ? await buildBundle(spec, main, join(workdir, spec.name)) : undefined;
  // Its upstreams, built as they deploy, run in the same Miniflare (so in the target's workerd).
  const emulators = serving === "miniflare" ? await emulatorWorkerOptions(join(workdir, `${spec.name}-emulators`), spec.upstreams) : [];
  const launch = () =>
    bundle === undefined ? withWranglerDev(spec, storageDir) : withMiniflare(spec, bundle, { storageDir, emulators, inspectorPort: options.inspectorPort });
  return {
    spec,
    bundle,
    async start() {
      const { value, pids } = await newWorkerdProcesses(launch, answersAt);
      if (pids.length === 0) {
        await value.stop();
        throw new Error(`${spec.name}: no workerd process appeared under this one (is /proc readable?)`);
      }
      return { name: spec.name, url: value.url, pids, stop: value.stop };
    },
  };
}

/** One request answered (any status): the Worker behind the address is up. */
async function answersAt({ url }: Started): Promise<void> {
  // A path no shape uses, so no counter a shape relies on is touched.
  const response = await fetch(new URL("/__bench/ready", url));
  await response.arrayBuffer();
}
