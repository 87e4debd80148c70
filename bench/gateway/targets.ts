// Where each target's Worker comes from: its wrangler config, environment and the variables a
// local run sets. The gateway is what `npm start` and the load test run, with an admin token
// added so the bench can read how it decided.
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { EMULATOR_NAMES, type EmulatorName } from "../../tools/emulator-workers.ts";
import { LOCAL_BINDINGS } from "../../tools/local-bindings.ts";
import { localSecret } from "../../tools/local-secret.ts";
import type { TargetName } from "./target-names.ts";

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const FIXTURES = resolve(ROOT, "bench/gateway/fixtures");

export interface TargetSpec {
  readonly name: TargetName;
  /** Absolute path of its wrangler config. */
  readonly config: string;
  /** Its wrangler environment, if any. */
  readonly env?: string;
  /** Variables set on top of the config's own. */
  readonly vars: Readonly<Record<string, string>>;
  /** The emulator Workers run beside it and bound as its services (every target: the hosted-API echo). */
  readonly upstreams: readonly EmulatorName[];
}

/** The gateway's config: every target runs on its compatibility date and flags. */
export const GATEWAY_CONFIG = { config: resolve(ROOT, "wrangler.toml"), env: "us" } as const;

/**
 * The gateway's admin token, so the bench can read its metrics (decision-mix.ts). It turns on
 * the admin API under /_tollgate/ and nothing else: no shape's route is under it, and the admin
 * API is mounted before the rate limiter. At least 16 characters (src/admin/tokens.ts).
 */
export const BENCH_ADMIN_TOKEN = "tollgate-bench-admin-token";

/** The gateway's variables: a local run's bindings, its secret and the bench's admin token. */
const GATEWAY_VARS = { ...LOCAL_BINDINGS, IDENTITY_HMAC_SECRET: localSecret(), ADMIN_TOKEN: BENCH_ADMIN_TOKEN };

export const TARGET_SPECS: Readonly<Record<Exclude<TargetName, "before">, TargetSpec>> = {
  bare: { name: "bare", config: resolve(FIXTURES, "bare.wrangler.toml"), vars: {}, upstreams: ["hosted-api"] },
  gateway: { name: "gateway", ...GATEWAY_CONFIG, vars: GATEWAY_VARS, upstreams: EMULATOR_NAMES },
  peer: { name: "peer", config: resolve(FIXTURES, "peer.wrangler.toml"), vars: {}, upstreams: ["hosted-api"] },
};

/**
 * A target's spec; `before` is the gateway's config in `beforeDir`, a checkout of another commit
 * (before-checkout.ts), with the same environment, variables and upstreams.
 *
 * @throws Error for `before` without a checkout
 */
export function targetSpec(name: TargetName, beforeDir?: string): TargetSpec {
  if (name !== "before") return TARGET_SPECS[name];
  if (beforeDir === undefined) throw new Error("the before target needs --before REV");
  return { name, config: resolve(beforeDir, "wrangler.toml"), env: GATEWAY_CONFIG.env, vars: GATEWAY_VARS, upstreams: EMULATOR_NAMES };
}
