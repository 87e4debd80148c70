/**
 * Which upstream a request is for. Pure module: the gateway, the explain command and npm start's
 * banner use it.
 *
 * The upstreams are separate services at separate addresses, and their paths collide (the agent
 * server's `/runs`, `/runs/batch`, `/info`, `/store/...` are also hosted-API paths), so the
 * gateway never tells them apart by a path the client chose:
 * - deployed (`ROUTING=hosts`), by the request's host, from the environment's UPSTREAM_HOSTS; a
 *   host it does not serve is refused (421), never guessed;
 * - locally (`ROUTING=paths`, one port for everything), by a mount prefix that no upstream
 *   documents a path under: the agent server below `/agent-server` (stripped, so an official
 *   client given `http://127.0.0.1:8787/agent-server` as its base URL works), the control plane's
 *   `/v2` and `/v1/integrations` paths, and the hosted API everywhere else.
 */
import { normalizePath } from "../core/rules/normalize.ts";
import { UPSTREAMS, type UpstreamName } from "../core/rules/upstreams.ts";

// The upstreams are named once, in the core; the request path's modules read them here.
export { UPSTREAMS, type UpstreamName };

/** A local mount: paths at or below `prefix` go to `upstream`, with the prefix removed when `strip`. */
export interface Mount {
  readonly prefix: string;
  readonly upstream: Exclude<UpstreamName, "hosted-api">;
  readonly strip: boolean;
}

export const LOCAL_MOUNTS: readonly Mount[] = [
  { prefix: "/agent-server", upstream: "agent-server", strip: true },
  // Each deployment's own agent server, read as deploymentScope says; no upstream documents a path there.
  { prefix: "/deployments", upstream: "agent-server", strip: false },
  // Every control-plane path is below /v2 and the hosted API documents none there.
  { prefix: "/v2", upstream: "control-plane", strip: false },
  // Its GitHub integration listings: the hosted API documents no path below /v1/integrations.
  { prefix: "/v1/integrations", upstream: "control-plane", strip: false },
];

/**
 * The upstream a normalized path is for under the local mounts, and the path it sees there.
 * Whole segments only: `/v2x` and `/agent-serverless` are the hosted API's.
 */
export function mountFor(path: string): { upstream: UpstreamName; path: string; stripped: number } {
  for (const mount of LOCAL_MOUNTS) {
    if (path === mount.prefix || path.startsWith(`${mount.prefix}/`)) {
      const stripped = mount.strip ? mount.prefix.length : 0;
      return { upstream: mount.upstream, path: path.slice(stripped) || "/", stripped };
    }
  }
  return { upstream: "hosted-api", path, stripped: 0 };
}

/** The agent-server prefix below which each deployment has an agent server of its own (docs/deployment-agent-servers.md). */
export const DEPLOYMENTS_PREFIX = "/deployments";

/**
 * An agent-server path (as sent, still encoded) below `/deployments/<id>`, read as that
 * deployment's agent server's own: the path its rules read (what follows the id), and the
 * canonical prefix forwarded in front of it, so the agent server knows which deployment. The
 * gateway applies it to every path the agent server is sent, however it was reached (`/deployments`
 * or `/agent-server/deployments` locally, any host deployed), so a deployment's `/info` is counted
 * as `/info` in every spelling, once. Undefined for any other path, and for a malformed one (its
 * reading refuses it).
 */
export function deploymentScope(rawPath: string): { rawPath: string; forwardPrefix: string } | undefined {
  const normalized = normalizePath(rawPath);
  if (!normalized.ok) return undefined;
  const { path, upstreamPath } = normalized;
  if (path !== DEPLOYMENTS_PREFIX && !path.startsWith(`${DEPLOYMENTS_PREFIX}/`)) return undefined;
  // The prefix needs no encoding; the id segment may, so its end is found in the encoded path
  // (an encoded segment holds no literal `/`).
  const slash = upstreamPath.indexOf("/", DEPLOYMENTS_PREFIX.length + 1);
  const end = path === DEPLOYMENTS_PREFIX ? DEPLOYMENTS_PREFIX.length : slash === -1 ? upstreamPath.length : slash;
  return { rawPath: upstreamPath.slice(end) || "/", forwardPrefix: upstreamPath.slice(0, end) };
}

/** Where a path of `upstream`'s own is reached on the one local port (the inverse of localRoute). */
export function localPathFor(upstream: UpstreamName, path: string): string {
  const mounts = LOCAL_MOUNTS.filter((m) => m.upstream === upstream);
  // A path already below one of the upstream's unstripped mounts is reached as it is.
  if (mounts.some((m) => !m.strip && (path === m.prefix || path.startsWith(`${m.prefix}/`)))) return path;
  const mount = mounts[0];
  if (!mount) return path;
  if (mount.strip) return path === "/" ? mount.prefix : `${mount.prefix}${path}`;
  return `${mount.prefix}${path}`;
}

/** The path forwarded upstream: the canonical path behind a deployment's prefix (`/deployments/<id>`, not `/deployments/<id>/`). */
export function forwardPath(forwardPrefix: string, upstreamPath: string): string {
  return forwardPrefix && upstreamPath === "/" ? forwardPrefix : forwardPrefix + upstreamPath;
}

/**
 * A routed request as its upstream reads it: for the agent server below `/deployments/<id>`, the
 * deployment's own path and the prefix forwarded in front of it (deploymentScope); as it is otherwise.
 * The gateway and the explain command both apply it.
 */
export function scopedRoute<R extends { upstream: UpstreamName; rawPath: string }>(routed: R): R & { forwardPrefix?: string } {
  const scope = routed.upstream === "agent-server" ? deploymentScope(routed.rawPath) : undefined;
  return scope ? { ...routed, ...scope } : routed;
}

/**
 * The upstream a request path (as sent, still encoded) is for under the local mounts, and the path
 * as that upstream's own. The mount is chosen on the canonical path, so no spelling of a path (dot
 * segments, encoded letters) reaches another upstream than the one whose table counts it. A
 * malformed path stays the hosted API's, whose reading refuses it.
 */
export function localRoute(rawPath: string): { upstream: UpstreamName; rawPath: string; strippedPrefix?: string } {
  const normalized = normalizePath(rawPath);
  if (!normalized.ok) return { upstream: "hosted-api", rawPath };
  const mount = mountFor(normalized.path);
  if (mount.stripped === 0) return { upstream: mount.upstream, rawPath };
  // The prefix needs no encoding, so it is as long in the encoded path.
  const strippedPrefix = normalized.upstreamPath.slice(0, mount.stripped);
  return { upstream: mount.upstream, rawPath: normalized.upstreamPath.slice(mount.stripped) || "/", strippedPrefix };
}

/** One entry of UPSTREAM_HOSTS: an exact host, or `*.suffix` for every host below the suffix. */
export interface HostRoute {
  readonly pattern: string;
  readonly upstream: UpstreamName;
}

/**
 * Parses UPSTREAM_HOSTS, e.g. `api.example.com=hosted-api, *.agents.example.com=agent-server`.
 * @throws Error naming the entry that is not `host=upstream`, an unknown upstream, or a host twice.
 */
export function parseUpstreamHosts(text: string): HostRoute[] {
  const routes: HostRoute[] = [];
  for (const entry of text
    .split(",")
    .map((e) => e.trim())
    .filter(Boolean)) {
    const [rawPattern, upstream, ...rest] = entry.split("=").map((part) => part.trim());
    const pattern = rawPattern?.toLowerCase() ?? "";
    if (rest.length > 0 || !upstream || !/^(\*\.)?[a-z0-9-]+(\.[a-z0-9-]+)*$/.test(pattern)) {
      throw new Error(`"${entry}" is not host=upstream (a host name, or *.suffix for every host below it)`);
    }
    if (!(UPSTREAMS as readonly string[]).includes(upstream)) throw new Error(`"${entry}": upstream must be one of ${UPSTREAMS.join(", ")}`);
    if (routes.some((r) => r.pattern === pattern)) throw new Error(`host ${pattern} is listed twice`);
    routes.push({ pattern, upstream: upstream as UpstreamName });
  }
  if (routes.length === 0) throw new Error("lists no host");
  return routes;
}

/**
 * The upstream serving `host` (no port), or undefined when the gateway does not serve it. An exact
 * entry wins over a wildcard; among wildcards the longest suffix wins. `*.x.com` does not serve
 * `x.com` itself.
 */
export function upstreamForHost(routes: readonly HostRoute[], host: string): UpstreamName | undefined {
  const name = host.toLowerCase().replace(/\.$/, "");
  let best: HostRoute | undefined;
  for (const route of routes) {
    if (route.pattern === name) return route.upstream;
    if (route.pattern.startsWith("*.") && name.endsWith(route.pattern.slice(1)) && (!best || route.pattern.length > best.pattern.length)) best = route;
  }
  return best?.upstream;
}
