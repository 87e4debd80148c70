// npm start's wrangler config: the gateway's wrangler.toml with one thing added, the service
// bindings to the emulator Workers in the environment it runs. The production environments
// declare none (a deploy fails on a binding to a Worker that is not deployed) and `wrangler dev`
// has no flag that adds one, so npm start writes this copy, beside wrangler.toml (wrangler
// resolves `main`, `.dev.vars` and `.wrangler/state` from the config's directory), gitignored,
// one per session and removed when it ends (main.ts). docs/emulators.md, "Where the bindings are declared".
import { chmodSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { EMULATOR_NAMES, emulatorConfig, emulatorLinks, localServices, ROOT, type EmulatorName } from "../emulator-workers.ts";

/**
 * The name an emulator Worker runs under in npm start's session: wrangler dev reads every config
 * of a session in the session's `--env`, and an environment that names no Worker runs under
 * `<name>-<env>` (withSessionEnvironment; the emulators have no environments: one sandbox each).
 */
export const sessionWorkerName = (worker: string, region: string): string => `${worker}-${region}`;

/**
 * Where npm start's copy of the config for `region` goes: one per session (`session`, npm start's
 * process id), so sessions running at once never rewrite each other's (wrangler dev watches its
 * config and would reload another session's secret).
 */
export const localConfigPath = (region: string, root = ROOT, session = process.pid): string => join(root, `.wrangler.local.${region}.${session}.json`);

/**
 * The gateway's raw config with `services` (binding -> emulator Worker) added to `region`'s
 * environment, and `vars` to its variables (the session's LOCAL_EDGE_SECRET). Pure apart from its
 * inputs: the raw config as wrangler reads it.
 * @throws when the config has no such environment, or already binds one of the services
 */
export function withLocalServices(
  raw: Record<string, unknown>,
  region: string,
  services: Record<string, string>,
  vars: Record<string, string> = {},
): Record<string, unknown> {
  const envs = (raw.env ?? {}) as Record<string, Record<string, unknown>>;
  const env = envs[region];
  if (!env) throw new Error(`wrangler.toml has no [env.${region}]`);
  const declared = (env.services ?? []) as Array<{ binding: string }>;
  const clash = declared.find((s) => s.binding in services);
  if (clash) throw new Error(`wrangler.toml [env.${region}] binds ${clash.binding} itself; the local runs add that binding (docs/emulators.md)`);
  const added = Object.entries(services).map(([binding, service]) => ({ binding, service }));
  const withVars = Object.keys(vars).length === 0 ? {} : { vars: { ...(env.vars as Record<string, unknown> | undefined), ...vars } };
  return { ...raw, env: { ...envs, [region]: { ...env, services: [...declared, ...added], ...withVars } } };
}

/** Where npm start's copy of an emulator's config for `region` goes: beside its wrangler.toml, one per session, for the same reasons. */
export const localEmulatorConfigPath = (name: EmulatorName, region: string, session = process.pid): string =>
  join(dirname(emulatorConfig(name)), `.wrangler.local.${region}.${session}.json`);

/**
 * An emulator's raw config as npm start's session runs it: its links to the other emulators
 * (EMULATOR_LINKS: the control plane's to the agent server's provisioning entrypoint) added as
 * `services`, and the whole of it again as the session's environment. wrangler dev reads every
 * config of a session in the session's `--env`: without that environment an emulator still runs
 * (under `<name>-<env>`), but wrangler warns at each start that the section is missing, which a
 * newcomer reads as something broken. An environment does not inherit the top level's bindings
 * (vars, Durable Objects, services), so the section repeats everything but the name, which stays
 * wrangler's default for an environment, `<name>-<env>` (sessionWorkerName). Pure.
 * @throws when the emulator's config declares environments of its own
 */
export function withSessionEnvironment(
  raw: Record<string, unknown>,
  region: string,
  links: Record<string, { service: string; entrypoint: string }> = {},
): Record<string, unknown> {
  if (raw.env !== undefined) throw new Error(`an emulator's config declares no environments (one sandbox each); npm start adds [env.${region}]`);
  const declared = (raw.services ?? []) as Array<{ binding: string }>;
  const added = Object.entries(links).map(([binding, { service, entrypoint }]) => ({ binding, service, entrypoint }));
  const own = added.length === 0 ? raw : { ...raw, services: [...declared, ...added] };
  const { name: _name, ...environment } = own;
  return { ...own, env: { [region]: environment } };
}

/** Writes npm start's copy of an emulator's config (withSessionEnvironment) and answers its path. */
async function emulatorDevConfig(name: EmulatorName, region: string): Promise<string> {
  const links = await emulatorLinks(name, EMULATOR_NAMES, (worker) => sessionWorkerName(worker, region));
  const { experimental_readRawConfig } = await import("wrangler");
  const { rawConfig } = experimental_readRawConfig({ config: emulatorConfig(name) });
  const path = localEmulatorConfigPath(name, region);
  writeFileSync(path, `${JSON.stringify(withSessionEnvironment(rawConfig as Record<string, unknown>, region, links), null, 2)}\n`);
  return path;
}

/**
 * Writes npm start's config for `region` and answers the `-c` arguments of `wrangler dev`: that
 * config first (the primary Worker, the gateway), then each emulator Worker's session copy (with
 * the region's environment and its links to the other emulators: withSessionEnvironment). `vars` (the session's
 * LOCAL_EDGE_SECRET) go in that file, readable by its owner only, never on a command line that
 * any user's `ps` shows.
 */
export async function localDevConfigs(region: string, vars: Record<string, string> = {}): Promise<string[]> {
  const { experimental_readRawConfig } = await import("wrangler");
  const { rawConfig } = experimental_readRawConfig({ config: join(ROOT, "wrangler.toml") });
  const services = Object.fromEntries(Object.entries(await localServices()).map(([binding, worker]) => [binding, sessionWorkerName(worker, region)]));
  const config = withLocalServices(rawConfig as Record<string, unknown>, region, services, vars);
  const path = localConfigPath(region);
  writeFileSync(path, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  // `mode` applies to a new file only: an older copy is made private too.
  chmodSync(path, 0o600);
  const emulators = await Promise.all(EMULATOR_NAMES.map((name) => emulatorDevConfig(name, region)));
  return [path, ...emulators].flatMap((config) => ["-c", config]);
}
