/**
 * The services the gateway forwards to, each counted by its own rule table (tables.ts) and
 * reached by host or local mount (src/gateway/routes.ts).
 */
export const UPSTREAMS = ["hosted-api", "control-plane", "agent-server"] as const;
export type UpstreamName = (typeof UPSTREAMS)[number];
