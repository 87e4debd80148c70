// What both servings share: a quiet, offline wrangler, the runtime every target runs on, and what
// a started Worker hands back.
import { GATEWAY_CONFIG } from "./targets.ts";

export interface Started {
  url: URL;
  stop(): Promise<void>;
}

/** Quiet, offline wrangler/Miniflare; a user's own setting of any of these wins. */
export function quietEnvironment(): void {
  process.env.WRANGLER_SEND_METRICS ??= "false";
  process.env.WRANGLER_HIDE_BANNER ??= "true";
  process.env.CLOUDFLARE_CF_FETCH_ENABLED ??= "false";
  // wrangler dev's local trace store costs a large share of its throughput (docs/bench.md).
  process.env.X_LOCAL_OBSERVABILITY ??= "false";
}

/**
 * Every target runs on the gateway's compatibility date and flags, so a runtime difference cannot
 * pass for the cost of rate limiting.
 */
export async function gatewayRuntime(): Promise<{ compatibilityDate: string; compatibilityFlags: string[] }> {
  const { unstable_readConfig } = await import("wrangler");
  const config = unstable_readConfig(GATEWAY_CONFIG);
  if (!config.compatibility_date) throw new Error(`${GATEWAY_CONFIG.config} has no compatibility_date`);
  return { compatibilityDate: config.compatibility_date, compatibilityFlags: config.compatibility_flags ?? [] };
}
