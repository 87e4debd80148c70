// Starts the gateway locally, with the emulator Workers bound as its upstreams, through wrangler's
// programmatic API (the same bundling and runtime as `npm start`), with the development-only
// settings the load test needs. Counters live in memory: nothing is written to .wrangler/state.
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { Algorithm } from "../../src/core/limiter/index.ts";
import type { Region } from "../../src/core/rules/schema.ts";
import { EMULATOR_NAMES } from "../emulator-workers.ts";
import { LOCAL_BINDINGS } from "../local-bindings.ts";
import { localSecret } from "../local-secret.ts";
import { serveWithWranglerDev } from "../wrangler-dev.ts";

export interface LocalGatewayOptions {
  readonly region: Region;
  readonly timeScale: number;
  /** "fixed-window" only to prove the tool catches a broken limiter. */
  readonly algorithm?: Algorithm;
  /** 0 (default): any free port. */
  readonly port?: number;
}

export interface LocalGateway {
  readonly url: URL;
  stop(): Promise<void>;
}

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");


/** The binding overrides a local load-test gateway runs with. */
export function localBindings(options: LocalGatewayOptions): Record<string, string> {
  return {
    ...LOCAL_BINDINGS,
    IDENTITY_HMAC_SECRET: localSecret(),
    // The us and eu environments refuse the development settings; this local gateway allows them.
    DEV_SETTINGS: "allow",
    TIME_SCALE: String(options.timeScale),
    LIMITER_ALGORITHM: options.algorithm ?? "sliding-window",
  };
}

export async function startLocalGateway(options: LocalGatewayOptions): Promise<LocalGateway> {
  return serveWithWranglerDev({ config: resolve(ROOT, "wrangler.toml"), env: options.region, vars: localBindings(options), port: options.port, emulators: EMULATOR_NAMES });
}
