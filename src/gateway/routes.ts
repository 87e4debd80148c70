/** The services behind the gateway. Pure module: the explain command and npm start's banner use it. */
export type UpstreamName = "hosted-api" | "control-plane" | "agent-server";

/**
 * First path segments that select an upstream other than the hosted API, which serves the rest.
 * Whole segments only, so `/v2x` or `/threadsafe` go to the hosted API.
 */
export const UPSTREAM_SEGMENTS: Readonly<Record<Exclude<UpstreamName, "hosted-api">, readonly string[]>> = {
  "control-plane": ["v2"],
  "agent-server": ["assistants", "threads"],
};

/** Which upstream serves a normalized path: `/v2/...` the control plane, `/assistants...` and `/threads...` the agent server, everything else the hosted API. */
export function upstreamFor(path: string): UpstreamName {
  const first = path.split("/", 2)[1] ?? "";
  for (const [name, segments] of Object.entries(UPSTREAM_SEGMENTS)) if (segments.includes(first)) return name as UpstreamName;
  return "hosted-api";
}
