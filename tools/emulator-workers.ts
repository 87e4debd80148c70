// The emulator Workers (emulators/*/wrangler.toml) and how a local run of the gateway binds them.
// The gateway's production environments declare no service bindings (a deploy fails on a binding
// to a Worker that is not deployed), so every local run adds them: npm start through a generated
// config (local-config.ts), the tests, the load test and the benches through these helpers
// (docs/emulators.md, "Where the bindings are declared").
import { execFile } from "node:child_process";
import { readdir } from "node:fs/promises";
import { createRequire } from "node:module";
import { basename, dirname, extname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import type { LegacyWorkerOptions } from "miniflare";

/** The repository root. */
export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** One emulated upstream: the gateway binding it fills and its Worker's config. */
export interface Emulator {
  /** The gateway's service binding (src/env.ts). */
  readonly binding: "HOSTED_API" | "CONTROL_PLANE" | "AGENT_SERVER";
  /** Its wrangler config, relative to the repository root. */
  readonly config: string;
}

/** Every emulated upstream, by the gateway's name for it (src/gateway/routes.ts). */
export const EMULATORS = {
  "hosted-api": { binding: "HOSTED_API", config: "emulators/hosted-api/wrangler.toml" },
  "control-plane": { binding: "CONTROL_PLANE", config: "emulators/control-plane/wrangler.toml" },
  "agent-server": { binding: "AGENT_SERVER", config: "emulators/agent-server/wrangler.toml" },
} as const satisfies Record<string, Emulator>;

export type EmulatorName = keyof typeof EMULATORS;
export const EMULATOR_NAMES = Object.keys(EMULATORS) as EmulatorName[];

/** A binding of one emulator Worker to an RPC entrypoint of another. */
export interface EmulatorLink {
  readonly from: EmulatorName;
  /** The binding in `from`'s environment (its env.ts). */
  readonly binding: string;
  readonly to: EmulatorName;
  readonly entrypoint: string;
}

/**
 * The emulators' bindings to each other, added by every local run and never by their wrangler.toml:
 * a deploy fails on a binding to a Worker that is not deployed, and each emulator deploys alone as
 * a sandbox (docs/deployment-agent-servers.md, "Wiring").
 */
export const EMULATOR_LINKS: readonly EmulatorLink[] = [
  // Each deployment of the control plane gets an agent server of its own once a revision deploys.
  { from: "control-plane", binding: "DEPLOYMENT_AGENT_SERVERS", to: "agent-server", entrypoint: "DeploymentProvisioning" },
];

/**
 * `from`'s bindings to the other emulators that run beside it (`running`): binding -> the target's
 * Worker name (as `workerName` renames it: npm start's session names) and entrypoint.
 */
export async function emulatorLinks(
  from: EmulatorName,
  running: readonly EmulatorName[] = EMULATOR_NAMES,
  workerName: (worker: string) => string = (worker) => worker,
): Promise<Record<string, { service: string; entrypoint: string }>> {
  const links = EMULATOR_LINKS.filter((link) => link.from === from && running.includes(link.to));
  const entries = await Promise.all(
    links.map(async (link) => [link.binding, { service: workerName(await emulatorWorkerName(link.to)), entrypoint: link.entrypoint }] as const),
  );
  return Object.fromEntries(entries);
}

/** The absolute path of an emulator's wrangler config. */
export const emulatorConfig = (name: EmulatorName): string => resolve(ROOT, EMULATORS[name].config);

/** The Worker name an emulator's config gives it (`tollgate-control-plane`...). */
export async function emulatorWorkerName(name: EmulatorName): Promise<string> {
  const { unstable_readConfig } = await import("wrangler");
  const config = unstable_readConfig({ config: emulatorConfig(name) });
  if (!config.name) throw new Error(`${EMULATORS[name].config} names no Worker`);
  return config.name;
}

/** The gateway's service bindings for `names`: binding -> emulator Worker name. */
export async function localServices(names: readonly EmulatorName[] = EMULATOR_NAMES): Promise<Record<string, string>> {
  const entries = await Promise.all(names.map(async (name) => [EMULATORS[name].binding, await emulatorWorkerName(name)] as const));
  return Object.fromEntries(entries);
}

const WRANGLER_BIN = resolve(dirname(createRequire(import.meta.url).resolve("wrangler/package.json")), "bin/wrangler.js");

/**
 * Builds an emulator as it deploys (`wrangler deploy --dry-run --outdir`), offline, and returns
 * its entry module's path.
 * @throws with wrangler's own output when the build fails
 */
export async function buildEmulator(name: EmulatorName, outdir: string): Promise<string> {
  const config = emulatorConfig(name);
  try {
    // process.execPath: the project's Node 24 (wrangler refuses the machine's Node 20).
    await promisify(execFile)(process.execPath, [WRANGLER_BIN, "deploy", "--dry-run", "--config", config, "--outdir", outdir], {
      cwd: ROOT,
      env: { ...process.env, WRANGLER_SEND_METRICS: "false", FORCE_COLOR: "0" },
      maxBuffer: 16 * 1024 * 1024,
    });
  } catch (error) {
    const { stdout = "", stderr = "" } = error as { stdout?: string; stderr?: string };
    throw new Error(`wrangler could not build the ${name} emulator (${EMULATORS[name].config}):\n${stderr || stdout}`);
  }
  const { unstable_readConfig } = await import("wrangler");
  const main = unstable_readConfig({ config }).main ?? "index.ts";
  const entry = `${basename(main, extname(main))}.js`;
  const files = await readdir(outdir);
  if (!files.includes(entry)) throw new Error(`the ${name} emulator's build wrote no ${entry} in ${outdir} (found ${files.join(", ") || "nothing"})`);
  return join(outdir, entry);
}

/**
 * Miniflare worker options (the v4 shape wrangler and @cloudflare/vitest-plugin take) for each
 * emulator in `names`, built into `outdir/<name>`: one module each, configured exactly as wrangler
 * reads its config (its Durable Objects, variables and compatibility settings), plus its links to
 * the others among `names` (EMULATOR_LINKS). Workers in the same Miniflare as the gateway reach
 * them by their Worker names (localServices).
 */
export async function emulatorWorkerOptions(outdir: string, names: readonly EmulatorName[] = EMULATOR_NAMES): Promise<LegacyWorkerOptions[]> {
  const { unstable_getMiniflareWorkerOptions } = await import("wrangler");
  return Promise.all(
    names.map(async (name) => {
      const entry = await buildEmulator(name, join(outdir, name));
      const { workerOptions } = unstable_getMiniflareWorkerOptions(emulatorConfig(name));
      // The bundle is one module; the config's module rules and root have nothing left to do.
      const { modulesRules: _rules, rootPath: _root, ...worker } = workerOptions;
      const links = Object.entries(await emulatorLinks(name, names)).map(([binding, { service, entrypoint }]) => [binding, { name: service, entrypoint }]);
      const serviceBindings = { ...(worker.serviceBindings as Record<string, unknown> | undefined), ...Object.fromEntries(links) };
      return {
        ...worker,
        serviceBindings,
        name: await emulatorWorkerName(name),
        modules: [{ type: "ESModule" as const, path: entry }],
        modulesRoot: dirname(entry),
      } as LegacyWorkerOptions;
    }),
  );
}
