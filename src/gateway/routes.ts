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
import { normalizePath } from "../rules/normalize.ts";

export const UPSTREAMS = ["hosted-api", "control-plane", "agent-server"] as const;
export type UpstreamName = (typeof UPSTREAMS)[number];

/** A local mount: paths at or below `prefix` go to `upstream`, with the prefix removed when `strip`. */
export interface Mount {
  readonly prefix: string;
  readonly upstream: Exclude<UpstreamName, "hosted-api">;
  readonly strip: boolean;
  /**
   * The segment after the prefix names one instance of the upstream (a deployment's own agent
   * server): prefix and segment are left out of the path the upstream's rules read, so the
   * instance's `/threads` is counted as the shared one's is, and forwarded in front of it, so the
   * upstream knows which instance. Deployed, an instance has a host of its own (`<id>.agents...`).
   */
  readonly instance?: boolean;
}

export const LOCAL_MOUNTS: readonly Mount[] = [
  { prefix: "/agent-server", upstream: "agent-server", strip: true },
  // A deployment's agent server (docs/deployment-agent-servers.md); no upstream documents a path there.
  { prefix: "/deployments", upstream: "agent-server", strip: true, instance: true },
  // Every control-plane path is below /v2 and the hosted API documents none there.
  { prefix: "/v2", upstream: "control-plane", strip: false },
  // Its GitHub integration listings: the hosted API documents no path below /v1/integrations.
  { prefix: "/v1/integrations", upstream: "control-plane", strip: false },
];

/**
 * The upstream a normalized path is for under the local mounts, and the path it sees there.
 * Whole segments only: `/v2x` and `/agent-serverless` are the hosted API's.
 */
export function mountFor(path: string): { upstream: UpstreamName; path: string; stripped: number; mount?: Mount } {
  for (const mount of LOCAL_MOUNTS) {
    if (path === mount.prefix || path.startsWith(`${mount.prefix}/`)) {
      const stripped = !mount.strip ? 0 : mount.instance ? instanceEnd(path, mount.prefix.length) : mount.prefix.length;
      return { upstream: mount.upstream, path: path.slice(stripped) || "/", stripped, mount };
    }
  }
  return { upstream: "hosted-api", path, stripped: 0 };
}

/** Where the instance segment after a prefix of `prefixLength` ends in `path` (the path's end without one). */
function instanceEnd(path: string, prefixLength: number): number {
  if (path.length === prefixLength) return prefixLength;
  const slash = path.indexOf("/", prefixLength + 1);
  return slash === -1 ? path.length : slash;
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

/**
 * The upstream a request path (as sent, still encoded) is for under the local mounts, the path as
 * that upstream's own (what its rules read), and, for an instance mount, the canonical prefix that
 * goes in front of it upstream (`/deployments/<id>`). The mount is chosen on the canonical path,
 * so no spelling of a path (dot segments, encoded letters) reaches another upstream than the one
 * whose table counts it. A malformed path stays the hosted API's, whose reading refuses it.
 */
export function localRoute(rawPath: string): { upstream: UpstreamName; rawPath: string; forwardPrefix?: string } {
  const normalized = normalizePath(rawPath);
  if (!normalized.ok) return { upstream: "hosted-api", rawPath };
  const mount = mountFor(normalized.path);
  if (mount.stripped === 0) return { upstream: mount.upstream, rawPath };
  // The prefix needs no encoding; an instance segment may, so its end is found again in the
  // encoded path (an encoded segment holds no literal `/`).
  const encoded = normalized.upstreamPath;
  if (!mount.mount?.instance) return { upstream: mount.upstream, rawPath: encoded.slice(mount.stripped) || "/" };
  const stripped = instanceEnd(encoded, mount.mount.prefix.length);
  return { upstream: mount.upstream, rawPath: encoded.slice(stripped) || "/", forwardPrefix: encoded.slice(0, stripped) };
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
  for (const entry of text.split(",").map((e) => e.trim()).filter(Boolean)) {
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
