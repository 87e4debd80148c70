import type { GatewaySettings } from "./settings.ts";
import type { GatewayRequest } from "./types.ts";
import type { UpstreamName } from "./routes.ts";

/**
 * An operation whose upstream documents holding its answer, headers included, until something
 * happens or a wait it bounds runs out: a long poll. Every other operation answers its headers
 * at once, then streams for as long as it likes (an event stream, an MCP `tools/call`): the
 * timeout never covers a body.
 */
interface LongPoll {
  readonly upstream: UpstreamName;
  readonly methods: readonly string[];
  /** The canonical path (GatewayRequest.path) the operation is served on. */
  readonly path: RegExp;
  /** The longest the upstream holds the answer: a fixed bound from its API, or a setting's. */
  readonly holdMs: number | "longPollHoldMs";
}

/**
 * The long polls of the upstreams, from their references (docs/configuration.md, "Upstream
 * timeouts"). Starlette answers HEAD on every GET route, so both are listed.
 */
export const LONG_POLLS: readonly LongPoll[] = [
  // `GET /v2/auth/wait/{auth_id}?timeout=`: seconds, default 30 (control-plane.openapi.json); the
  // control plane holds it at most 60 s, twice the default (its emulator's MAX_WAIT_SECONDS).
  { upstream: "control-plane", methods: ["GET", "HEAD"], path: /^\/v2\/auth\/wait\/[^/]+$/, holdMs: 60_000 },
  // A run's result: the open-source agent server sends a join's headers when the run ends, and a
  // server may do the same for a wait (the JS server sends a wait's headers at once, then a newline
  // a second until the result). The API bounds neither by anything but the run, so the bound is
  // LONG_POLL_HOLD_MS, an hour unless set. A run's event stream (`/runs/{id}/stream`) is no long
  // poll: every server sends its headers first.
  { upstream: "agent-server", methods: ["GET", "HEAD"], path: /^\/threads\/[^/]+\/runs\/[^/]+\/join$/, holdMs: "longPollHoldMs" },
  { upstream: "agent-server", methods: ["POST"], path: /^(\/threads\/[^/]+)?\/runs\/wait$/, holdMs: "longPollHoldMs" },
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
  settings: Pick<GatewaySettings, "upstreamTimeoutMs" | "longPollHoldMs">,
  request: Pick<GatewayRequest, "upstream" | "path">,
  method: string,
): number {
  for (const poll of LONG_POLLS) {
    if (poll.upstream === request.upstream && poll.methods.includes(method) && poll.path.test(request.path)) {
      return (poll.holdMs === "longPollHoldMs" ? settings.longPollHoldMs : poll.holdMs) + settings.upstreamTimeoutMs;
    }
  }
  return settings.upstreamTimeoutMs;
}
