// The small benches' server: one Worker made of the bench's own module files, in a workerd of its
// own (Miniflare's API, as bench:gateway serves its targets), with the workerd processes that
// appeared for it named, for their CPU time and pinning.
import { join } from "node:path";
import type { Miniflare } from "miniflare";
import { newWorkerdProcesses } from "./gateway/processes.ts";

export interface ModuleWorkerOptions {
  readonly name: string;
  /** The directory the modules are in; the first is the entry. */
  readonly dir: string;
  readonly modules: readonly string[];
  readonly compatibilityDate: string;
  readonly compatibilityFlags?: readonly string[];
  /** Durable Object bindings, by binding name. */
  readonly durableObjects?: Readonly<Record<string, { readonly className: string; readonly useSQLite: true }>>;
  /** A path the Worker answers once it is up (any status). */
  readonly readyPath: string;
}

export async function startModuleWorker(options: ModuleWorkerOptions): Promise<{ mf: Miniflare; pids: readonly number[] }> {
  const { Miniflare, convertV4MiniflareOptions } = await import("miniflare");
  const { name, dir, modules, compatibilityDate, compatibilityFlags, durableObjects, readyPath } = options;
  const { value: mf, pids } = await newWorkerdProcesses(
    async () => {
      const config = {
        host: "127.0.0.1",
        port: 0,
        logRequests: false,
        workers: [
          {
            name,
            modules: modules.map((file) => ({ type: "ESModule" as const, path: join(dir, file) })),
            modulesRoot: dir,
            compatibilityDate,
            ...(compatibilityFlags && { compatibilityFlags: [...compatibilityFlags] }),
            ...(durableObjects && { durableObjects }),
          },
        ],
      };
      const mf = new Miniflare(convertV4MiniflareOptions(config as Parameters<typeof convertV4MiniflareOptions>[0]));
      await mf.ready;
      return mf;
    },
    async (started) => void (await (await started.dispatchFetch(`http://localhost${readyPath}`)).text()),
  );
  return { mf, pids };
}
