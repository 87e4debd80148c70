// One way to serve a Worker in-process with wrangler's programmatic API (the same bundling and
// runtime as `npm start`): the load test's own gateway and the gateway bench both use it.

export interface WranglerDevOptions {
  /** Absolute path of the wrangler config. */
  readonly config: string;
  readonly env?: string;
  /** Plain-text variables set on top of the config's own. */
  readonly vars: Readonly<Record<string, string>>;
  /** 0 (default): any free port. */
  readonly port?: number;
  /** Overrides of the config's compatibility date and flags. */
  readonly runtime?: { readonly compatibilityDate: string; readonly compatibilityFlags: string[] };
  /** Where the bindings' data (the Durable Objects' SQLite files) goes; wrangler's temporary directory by default. */
  readonly storageDir?: string;
}

export interface ServedWorker {
  readonly url: URL;
  stop(): Promise<void>;
}

/**
 * Starts the Worker on 127.0.0.1, offline, its storage in a temporary directory (or `storageDir`)
 * that nothing reads afterwards; the Worker's own logs go nowhere.
 */
export async function serveWithWranglerDev(options: WranglerDevOptions): Promise<ServedWorker> {
  process.env.WRANGLER_SEND_METRICS ??= "false";
  // Miniflare would otherwise try to download the Request.cf placeholder: no network is needed.
  process.env.CLOUDFLARE_CF_FETCH_ENABLED ??= "false";
  const { unstable_startWorker } = await import("wrangler");
  const bindings = Object.fromEntries(Object.entries(options.vars).map(([name, value]) => [name, { type: "plain_text" as const, value }]));
  const worker = await unstable_startWorker({
    config: options.config,
    env: options.env,
    bindings,
    ...options.runtime,
    dev: {
      server: { hostname: "127.0.0.1", port: options.port ?? 0 },
      inspector: false,
      // Counters start empty and nothing touches .wrangler/state.
      persist: options.storageDir ?? false,
      watch: false,
      logLevel: "error",
      // The gateway logs a line per denial; the callers' own output is the record.
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
