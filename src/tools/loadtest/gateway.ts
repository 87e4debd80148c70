// Starts the gateway locally, with its local upstreams, through wrangler's programmatic API (the
// same bundling and runtime as `npm start`), with the development-only settings the load test
// needs. Counters live in memory: nothing is written to the user's .wrangler/state.
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { Region } from "../../rules/schema.ts";
import { LOCAL_BINDINGS } from "../local-bindings.ts";

export type LimiterAlgorithm = "sliding-window" | "fixed-window";

export interface LocalGatewayOptions {
  readonly region: Region;
  readonly timeScale: number;
  /** "fixed-window" only to prove the tool catches a broken limiter. */
  readonly algorithm?: LimiterAlgorithm;
  /** 0 (default): any free port. */
  readonly port?: number;
}

export interface LocalGateway {
  readonly url: URL;
  stop(): Promise<void>;
}

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");

const text = (value: string) => ({ type: "plain_text" as const, value });

/** The binding overrides a local load-test gateway runs with. */
export function localBindings(options: LocalGatewayOptions): Record<string, string> {
  return {
    ...LOCAL_BINDINGS,
    // The us and eu environments refuse the development settings; this local gateway allows them.
    DEV_SETTINGS: "allow",
    TIME_SCALE: String(options.timeScale),
    LIMITER_ALGORITHM: options.algorithm ?? "sliding-window",
  };
}

export async function startLocalGateway(options: LocalGatewayOptions): Promise<LocalGateway> {
  process.env.WRANGLER_SEND_METRICS ??= "false";
  // Miniflare would otherwise try to download the Request.cf placeholder: the gateway needs no network.
  process.env.CLOUDFLARE_CF_FETCH_ENABLED ??= "false";
  const { unstable_startWorker } = await import("wrangler");
  const bindings = Object.fromEntries(Object.entries(localBindings(options)).map(([k, v]) => [k, text(v)]));
  const worker = await unstable_startWorker({
    config: resolve(ROOT, "wrangler.toml"),
    env: options.region,
    bindings,
    dev: {
      server: { hostname: "127.0.0.1", port: options.port ?? 0 },
      inspector: false,
      // In memory: counters start empty and nothing touches .wrangler/state.
      persist: false,
      watch: false,
      logLevel: "error",
      // The gateway logs a line per denial; the load test's own output is the record.
      structuredLogsHandler: () => undefined,
    },
  } as Parameters<typeof unstable_startWorker>[0]);
  try {
    await worker.ready;
    const url = await worker.url;
    return { url: new URL(url.href), stop: () => worker.dispose() };
  } catch (error) {
    await worker.dispose().catch(() => undefined);
    throw error;
  }
}
