// Is the environment's deployment deployable as written? Every finding names the setting and the
// file a fork edits, so the fix is one edit away. Pure: the caller reads wrangler.toml.
import { parseUpstreamHosts, type HostRoute, type UpstreamName } from "../../src/gateway/routes.ts";
import { ORIGIN_SETTINGS, type Environment, type Route } from "./environment.ts";
import { reservedName } from "./reserved-names.ts";

/** One reason a real deploy is refused. */
export interface Finding {
  /** Where to fix it: `wrangler.toml [env.us.vars] HOSTED_API_ORIGIN`. */
  readonly setting: string;
  readonly problem: string;
}

/** The hosts, routes and origins of one region, as the plan shows them. */
export interface Deployment {
  readonly upstreamHosts: readonly HostRoute[];
  readonly adminHosts: readonly string[];
  readonly origins: ReadonlyArray<{ readonly upstream: UpstreamName; readonly setting: string; readonly origin: string }>;
  readonly routes: readonly Route[];
  readonly findings: readonly Finding[];
}

/** The host a route serves: `api.x.com` for a custom domain, `*.agents.x.com` for `*.agents.x.com/*`. */
export function routeHost(route: Route): string {
  return route.customDomain ? route.pattern : route.pattern.replace(/\/\*$/, "");
}

/**
 * The region's hosts, routes and origins, and everything that stops them being deployed: an
 * example or missing value, an origin that is not https, a host without a route (unreachable) or
 * a route to a host the gateway does not serve (every request there refused 421), and an admin
 * host that is also an upstream's (the dashboard would share that origin).
 */
export function checkDeployment(environment: Environment): Deployment {
  const findings: Finding[] = [];
  const { vars, region, configName } = environment;
  const varsAt = (name: string) => `${configName} [env.${region}.vars] ${name}`;
  const routesAt = `${configName} [env.${region}] routes`;

  const origins = Object.entries(ORIGIN_SETTINGS).map(([upstream, setting]) => ({ upstream: upstream as UpstreamName, setting, origin: vars[setting] ?? "" }));
  for (const { setting, origin } of origins) {
    const problem = originProblem(origin);
    if (problem) findings.push({ setting: varsAt(setting), problem });
  }

  let upstreamHosts: HostRoute[] = [];
  if (vars.ROUTING !== "hosts")
    findings.push({
      setting: varsAt("ROUTING"),
      problem: `must be "hosts" deployed (got "${vars.ROUTING ?? ""}"): a deployed gateway picks the upstream by host`,
    });
  try {
    upstreamHosts = parseUpstreamHosts(vars.UPSTREAM_HOSTS ?? "");
  } catch (error) {
    findings.push({ setting: varsAt("UPSTREAM_HOSTS"), problem: `${(error as Error).message}; write "host=upstream, ..." for the hosts this region serves` });
  }
  for (const { pattern } of upstreamHosts) {
    const why = reservedName(pattern);
    if (why) findings.push({ setting: varsAt("UPSTREAM_HOSTS"), problem: `"${pattern}" is an example host: ${why}; write the hosts your clients use` });
  }

  const adminHosts = (vars.ADMIN_HOSTS ?? "")
    .split(",")
    .map((h) => h.trim().toLowerCase())
    .filter(Boolean);
  if (adminHosts.length === 0)
    findings.push({ setting: varsAt("ADMIN_HOSTS"), problem: "is empty: name the admin API's own host (the deploy probes its health there)" });
  for (const host of adminHosts) {
    if (!/^[a-z0-9-]+(\.[a-z0-9-]+)+$/.test(host))
      findings.push({ setting: varsAt("ADMIN_HOSTS"), problem: `"${host}" is not a host name (the admin host is one exact name, no wildcard)` });
    const why = reservedName(host);
    if (why) findings.push({ setting: varsAt("ADMIN_HOSTS"), problem: `"${host}" is an example host: ${why}; write your admin host` });
    if (upstreamHosts.some((h) => h.pattern === host || (h.pattern.startsWith("*.") && host.endsWith(h.pattern.slice(1))))) {
      findings.push({
        setting: varsAt("ADMIN_HOSTS"),
        problem: `"${host}" is also an upstream host in UPSTREAM_HOSTS: the dashboard must not share an origin with upstream content`,
      });
    }
  }

  const routes = environment.routes;
  if (routes.length === 0) findings.push({ setting: routesAt, problem: "none: the Worker would be reachable on no host" });
  const served = new Set([...upstreamHosts.map((h) => h.pattern), ...adminHosts]);
  const routed = new Set(routes.map(routeHost));
  for (const route of routes) {
    const host = routeHost(route);
    if (route.customDomain && host.includes("*"))
      findings.push({
        setting: routesAt,
        problem: `"${route.pattern}": a custom domain cannot be a wildcard; use { pattern = "${host}/*", zone_name = "<zone>" }`,
      });
    if (!route.customDomain && !route.pattern.endsWith("/*"))
      findings.push({ setting: routesAt, problem: `"${route.pattern}": a zone route must cover every path ("<host>/*")` });
    if (!route.customDomain && !route.zone)
      findings.push({ setting: routesAt, problem: `"${route.pattern}": a zone route needs zone_name (the zone its host is in)` });
    if (!served.has(host))
      findings.push({
        setting: routesAt,
        problem: `"${route.pattern}" routes ${host}, which neither UPSTREAM_HOSTS nor ADMIN_HOSTS lists: every request there would be refused`,
      });
    const why = reservedName(host);
    if (why) findings.push({ setting: routesAt, problem: `"${route.pattern}" is an example host: ${why}` });
    const zoneWhy = route.zone && reservedName(route.zone);
    if (zoneWhy) findings.push({ setting: routesAt, problem: `"${route.pattern}": zone_name "${route.zone}" is an example zone: ${zoneWhy}` });
  }
  for (const host of served) {
    if (!routed.has(host))
      findings.push({
        setting: routesAt,
        problem: `no route for ${host} (listed in ${adminHosts.includes(host) ? "ADMIN_HOSTS" : "UPSTREAM_HOSTS"}): add ${host.startsWith("*.") ? `{ pattern = "${host}/*", zone_name = "<zone>" }` : `{ pattern = "${host}", custom_domain = true }`}`,
      });
  }
  return { upstreamHosts, adminHosts, origins, routes, findings };
}

function originProblem(origin: string): string | undefined {
  if (origin === "") return "is empty: write the upstream's https origin (the gateway answers 500 without it)";
  if (origin === "service" || origin === "bundled")
    return `is "${origin}": the emulator Workers are for npm start and the tests, never production; write the upstream's https origin`;
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return `"${origin}" is not a URL; write the upstream's https origin`;
  }
  if (url.protocol !== "https:") return `"${origin}" is not https: clients' API keys would cross the network in clear`;
  const why = reservedName(url.hostname);
  if (why) return `"${origin}" is an example origin: ${why}; write your upstream's origin`;
  return undefined;
}
