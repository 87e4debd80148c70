import type { SocketRoute } from "../core/rules/socket-rules.ts";
import type { Env } from "../env.ts";
import type { RegionRuntime } from "./region-runtime.ts";
import type { UpstreamName } from "./routes.ts";

/**
 * One request as the gateway read it (request-reading.ts): what counting and forwarding both act
 * on, handed from step to step as a value.
 */
export interface GatewayRequest {
  /** The request URL, parsed once. */
  readonly url: URL;
  /** The upstream the request is for (by host, or locally by mount prefix). */
  readonly upstream: UpstreamName;
  /** Normalized, decoded path: what rules are matched against. */
  readonly path: string;
  /**
   * The path as the client sent it (still encoded; a local mount taken off, a deployment's prefix
   * kept): what the upstream receives, whose spelling it reads as `path` (path-spelling.ts).
   */
  readonly upstreamPath: string;
  /** The local mount prefix taken off the path (`/agent-server` under npm start), told to the upstream as X-Forwarded-Prefix. */
  readonly strippedPrefix?: string;
  /** The identity headers as the upstream reads them (null when absent). */
  readonly apiKey: string | null;
  readonly userId: string | null;
  /** The client key of CF-Connecting-IP (clientIpKey): what IP rules count by. */
  readonly clientIp: string;
  /** CF-Connecting-IP as the edge set it, trimmed; undefined when absent or not an address. */
  readonly edgeAddress: string | undefined;
  /**
   * Set on a WebSocket upgrade (src/core/rules/websocket-upgrade.ts): the socket rule of its path
   * (and the root it was found under), which says how the frames it carries count
   * (src/core/rules/socket-rules.ts).
   */
  readonly socket?: SocketRoute;
}

/** Hono environment of the gateway app. */
export interface GatewayEnv {
  Bindings: Env;
  Variables: {
    /** Set once the request is read, so the error handler can say which path failed. */
    request: GatewayRequest;
    /**
     * The serving isolate's runtime for the request's region (region-runtime.ts): its counting,
     * overrides cache, metrics and settings. Set once, before the request is read.
     */
    runtime: RegionRuntime;
  };
}
