// One region's deployment as wrangler.toml describes it, read by wrangler's own config reader (the
// same parse `wrangler deploy` makes), offline.
import { dirname, relative } from "node:path";
import type { UpstreamName } from "../../src/gateway/routes.ts";
import { REGIONS, type Region } from "../../src/core/rules/schema.ts";

/** Each upstream's origin variable: an https URL a fork writes once in its environment's vars. */
export const ORIGIN_SETTINGS = {
  "hosted-api": "HOSTED_API_ORIGIN",
  "control-plane": "CONTROL_PLANE_ORIGIN",
  "agent-server": "AGENT_SERVER_ORIGIN",
} as const satisfies Record<UpstreamName, string>;

/** A route of the environment: a custom domain (an exact host) or a zone route pattern. */
export interface Route {
  readonly pattern: string;
  readonly customDomain: boolean;
  readonly zone: string | undefined;
}

/** What `npm run deploy` needs to know about one region, straight from wrangler.toml. */
export interface Environment {
  readonly region: Region;
  /** The Worker's name in that environment (`tollgate-us`). */
  readonly worker: string;
  /** Absolute path of the wrangler config read. */
  readonly configPath: string;
  /** The directory the config lives in: the repository root, where rules/ and tsconfig files are. */
  readonly root: string;
  /** The config as a user names it in messages (`wrangler.toml`). */
  readonly configName: string;
  readonly routes: readonly Route[];
  /** The environment's plain-text variables (`[env.<region>.vars]`). */
  readonly vars: Readonly<Record<string, string>>;
  /** Durable Object migration tags in order; the last is the one a deployed Worker must be at. */
  readonly migrationTags: readonly string[];
}

/** True for the regions wrangler.toml has environments for. */
export function isRegion(value: string): value is Region {
  return (REGIONS as readonly string[]).includes(value);
}

/**
 * Reads `[env.<region>]` of the config at `configPath` with wrangler's reader.
 * @throws Error from wrangler when the config does not parse
 */
export async function readEnvironment(configPath: string, region: Region): Promise<Environment> {
  // wrangler is loaded only here: the rest of the tool (and its tests) never pay for it.
  const { unstable_readConfig } = await import("wrangler");
  const config = unstable_readConfig({ config: configPath, env: region });
  const configured = (config.routes ?? []) as ReadonlyArray<string | { pattern: string; custom_domain?: boolean; zone_name?: string; zone_id?: string }>;
  const routes = configured.map((route): Route =>
    typeof route === "string"
      ? { pattern: route, customDomain: false, zone: undefined }
      : { pattern: route.pattern, customDomain: route.custom_domain === true, zone: route.zone_name ?? route.zone_id },
  );
  const vars = Object.fromEntries(Object.entries(config.vars ?? {}).map(([name, value]) => [name, typeof value === "string" ? value : JSON.stringify(value)]));
  const root = dirname(configPath);
  return {
    region,
    worker: config.name ?? `tollgate-${region}`,
    configPath,
    root,
    configName: relative(process.cwd(), configPath) || configPath,
    routes,
    vars,
    migrationTags: ((config.migrations ?? []) as ReadonlyArray<{ tag: string }>).map((m) => m.tag),
  };
}
