import type { Env } from "../env.ts";
import type { UpstreamName } from "./routes.ts";

/** Hono environment of the gateway app: bindings plus what earlier middleware hands on. */
export interface GatewayEnv {
  Bindings: Env;
  Variables: {
    /** The request URL, parsed once. */
    url: URL;
    /** The upstream the request is for (by host, or locally by mount prefix). */
    upstream: UpstreamName;
    /** Normalized, decoded path: what rules are matched against. */
    path: string;
    /** The same path, canonically re-encoded: what the upstream receives. */
    upstreamPath: string;
    /** The identity headers as the upstream reads them (null when absent). */
    apiKey: string | null;
    userId: string | null;
  };
}
