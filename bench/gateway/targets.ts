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

export const TARGET_SPECS: Readonly<Record<TargetName, TargetSpec>> = {
  bare: { name: "bare", config: resolve(FIXTURES, "bare.wrangler.toml"), vars: {}, upstreams: ["hosted-api"] },
  gateway: {
    name: "gateway",
    ...GATEWAY_CONFIG,
    vars: { ...LOCAL_BINDINGS, IDENTITY_HMAC_SECRET: localSecret(), ADMIN_TOKEN: BENCH_ADMIN_TOKEN },
    upstreams: EMULATOR_NAMES,
  },
  peer: { name: "peer", config: resolve(FIXTURES, "peer.wrangler.toml"), vars: {}, upstreams: ["hosted-api"] },
};
