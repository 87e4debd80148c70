import type { GatewaySettings } from "./settings.ts";
import type { GatewayRequest } from "./types.ts";
import type { UpstreamName } from "./routes.ts";

/**
 * An operation whose upstream documents holding its answer, headers included, until something
 * happens or a wait it bounds runs out: a long poll. Every other operation answers its headers
 * at once, then streams for as long as it likes (an event stream, a run's `wait` or `join`, an MCP
 * `tools/call`): the timeout never covers a body.
 */
interface LongPoll {
  readonly upstream: UpstreamName;
  readonly methods: readonly string[];
  /** The canonical path (GatewayRequest.path) the operation is served on. */
  readonly path: RegExp;
  /** The longest the upstream holds the answer. */
  readonly holdMs: number;
}

/**
 * The long polls of the upstreams, from their references (docs/configuration.md, "Upstream
 * timeouts"). Starlette answers HEAD on every GET route, so both are listed.
 */
export const LONG_POLLS: readonly LongPoll[] = [
  // `GET /v2/auth/wait/{auth_id}?timeout=`: seconds, default 30 (control-plane.openapi.json); the
  // control plane holds it at most 60 s, twice the default (its emulator's MAX_WAIT_SECONDS).
  { upstream: "control-plane", methods: ["GET", "HEAD"], path: /^\/v2\/auth\/wait\/[^/]+$/, holdMs: 60_000 },
];

/**
 * How long the gateway waits for the first byte of the upstream's answer (its response headers):
 * UPSTREAM_TIMEOUT_MS, plus the hold of a long poll, so an upstream working within its own API's
 * limits is never cut, and one that is not answering is cut as soon as an ordinary call would be
 * once its documented wait is over.
 *
 * @example
 * firstByteTimeoutMs(settings, request, "GET"); // 90_000 for /v2/auth/wait/{id} with the default 30 s
 */
export function firstByteTimeoutMs(
  settings: Pick<GatewaySettings, "upstreamTimeoutMs">,
  request: Pick<GatewayRequest, "upstream" | "path">,
  method: string,
): number {
  for (const poll of LONG_POLLS) {
    if (poll.upstream === request.upstream && poll.methods.includes(method) && poll.path.test(request.path)) return poll.holdMs + settings.upstreamTimeoutMs;
  }
  return settings.upstreamTimeoutMs;
}
