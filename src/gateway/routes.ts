/** The services behind the gateway. Pure module: the explain command uses it on Node. */
export type UpstreamName = "hosted-api" | "control-plane" | "agent-server";

/**
 * Which upstream serves a normalized path: `/v2/...` the control plane, `/assistants...` and
 * `/threads...` the agent server, everything else the hosted API. Prefixes are whole segments,
 * so `/v2x` or `/threadsafe` go to the hosted API.
 */
export function upstreamFor(path: string): UpstreamName {
  const first = path.split("/", 2)[1] ?? "";
  if (first === "v2") return "control-plane";
  if (first === "assistants" || first === "threads") return "agent-server";
  return "hosted-api";
}
