/**
 * The hosts the admin API answers on (ADMIN_HOSTS, docs/admin.md "Hosts"). An admin host serves
 * the admin API and nothing else, and no other host serves it: the dashboard's login then never
 * shares an origin with upstream content, whose pages could otherwise read or drive it.
 */
import type { Env } from "../env.ts";
import { SettingError } from "../http/setting-error.ts";
import { cachedPerEnv, parseUpstreamHosts, upstreamForHost } from "../gateway/runtime.ts";

/** The admin hosts as configured, and what is wrong with them, if anything. */
export interface AdminHosts {
  /** Exact host names, lower case, without a trailing dot. Empty: the admin API is off. */
  readonly hosts: ReadonlySet<string>;
  /** A mistake in ADMIN_HOSTS: every admin answer names it (health 503, the rest 500). */
  readonly mistake?: SettingError;
}

const HOST_NAME = /^[a-z0-9-]+(\.[a-z0-9-]+)*$/;

/**
 * Parses ADMIN_HOSTS, e.g. `tollgate-admin.us.example.com, admin.localhost`: exact host names
 * only (no scheme, port, path or wildcard: a wildcard would hand the admin API to every host
 * someone adds below it). Case and a trailing dot do not matter, as for UPSTREAM_HOSTS.
 * @throws Error naming the entry by its position (never echoing it) or a host listed twice.
 */
export function parseAdminHosts(text: string | undefined): string[] {
  const hosts: string[] = [];
  for (const [index, entry] of (text ?? "")
    .split(",")
    .map((e) => e.trim())
    .filter(Boolean)
    .entries()) {
    const host = canonicalHost(entry);
    if (!HOST_NAME.test(host)) throw new Error(`entry ${index + 1} is not a host name (no scheme, port, path or wildcard)`);
    if (hosts.includes(host)) throw new Error(`host ${host} is listed twice`);
    hosts.push(host);
  }
  return hosts;
}

/** A host name as the gateway compares it: lower case, without the trailing dot of a fully qualified name. */
export function canonicalHost(host: string): string {
  const lower = host.toLowerCase();
  return lower.endsWith(".") ? lower.slice(0, -1) : lower;
}

/**
 * The admin hosts of `env`, read once per env object. A mistake is kept as a value, not thrown:
 * it fails the admin API only (traffic on upstream hosts keeps flowing), and it is logged once.
 * - ADMIN_HOSTS unparseable: no host is known to be the admin's, so `/_tollgate/` on every host
 *   answers the mistake.
 * - An admin host also served by UPSTREAM_HOSTS (exactly or by a wildcard): the dashboard would
 *   share its origin with upstream content. Every request to that host answers the mistake, the
 *   upstream's included, so neither is served there until the configuration is fixed.
 */
export const adminHostsOf = cachedPerEnv((env: Env): AdminHosts => {
  let hosts: string[];
  try {
    hosts = parseAdminHosts(env.ADMIN_HOSTS);
  } catch (error) {
    return logged({ hosts: new Set(), mistake: new SettingError("ADMIN_HOSTS", `gateway misconfigured: ADMIN_HOSTS: ${(error as Error).message}`) });
  }
  const shared = hosts.map((host) => [host, upstreamHostOf(env, host)] as const).find(([, upstream]) => upstream !== undefined);
  if (shared) {
    const [host, upstream] = shared;
    const mistake = new SettingError(
      "ADMIN_HOSTS",
      `gateway misconfigured: ADMIN_HOSTS: ${host} is also an upstream host (UPSTREAM_HOSTS serves it to ${upstream}); the admin dashboard would share its origin with upstream content. Give the admin API a host of its own.`,
    );
    return logged({ hosts: new Set(hosts), mistake });
  }
  return { hosts: new Set(hosts) };
});

/** The upstream UPSTREAM_HOSTS serves `host` to, when routing by host; a broken UPSTREAM_HOSTS is gatewaySettings's to report. */
function upstreamHostOf(env: Env, host: string): string | undefined {
  if (env.ROUTING === "paths" || !env.UPSTREAM_HOSTS?.trim()) return undefined;
  try {
    return upstreamForHost(parseUpstreamHosts(env.UPSTREAM_HOSTS), host);
  } catch {
    return undefined;
  }
}

function logged(hosts: AdminHosts): AdminHosts {
  console.log(JSON.stringify({ event: "gateway_misconfigured", detail: hosts.mistake?.message }));
  return hosts;
}

/**
 * The host name of a request URL as serialized by the runtime (lower case, IDNA-encoded, no
 * default port), without port or trailing dot: read from the string on the fast path, since
 * every request asks. Anything unusual in the authority (user info, an IPv6 literal, an escape)
 * goes through the URL parser, so no spelling reads differently here than in routing.
 */
export function hostnameOf(url: string): string {
  const start = url.indexOf("//") + 2;
  let end = url.indexOf("/", start);
  if (end === -1) end = url.length;
  const authority = url.slice(start, end);
  if (/[@[%\\]/.test(authority)) return canonicalHost(new URL(url).hostname);
  const colon = authority.indexOf(":");
  return canonicalHost(colon === -1 ? authority : authority.slice(0, colon));
}

/**
 * The path of a request URL as serialized by the runtime, still percent-encoded, without query
 * or fragment (URL.pathname), read from the string: the front door asks it of every request.
 */
export function rawPathOf(url: string): string {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  if (start === -1) return "/";
  const query = url.indexOf("?", start);
  const fragment = url.indexOf("#", start);
  return url.slice(start, Math.min(query === -1 ? url.length : query, fragment === -1 ? url.length : fragment));
}

/**
 * Where a request stands with the admin API: "admin" (an admin host, or any `/_tollgate/` path
 * while ADMIN_HOSTS is unparseable: the admin API answers, or names the mistake), "not-found"
 * (`/_tollgate/` elsewhere: never the admin API, never forwarded) or undefined (the gateway's).
 *
 * @example
 * const door = adminDoor(env, request.url, reachesReservedPath(rawPathOf(request.url)));
 */
export function adminDoor(env: Env, url: string, adminPath: boolean): "admin" | "not-found" | undefined {
  const { hosts, mistake } = adminHostsOf(env);
  if (hosts.size === 0) return adminPath ? (mistake ? "admin" : "not-found") : undefined;
  if (hosts.has(hostnameOf(url))) return "admin";
  return adminPath ? "not-found" : undefined;
}
