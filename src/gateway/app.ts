import { Hono, type Context } from "hono";
import { LinearRouter } from "hono/router/linear-router";
import type { Classifier } from "../core/rules/classify.ts";
import type { RuleTable } from "../core/rules/load.ts";
import { classifiers as publishedClassifiers } from "../core/rules/tables.ts";
import { renderError } from "../http/render-error.ts";
import { GatewayError } from "../http/gateway-error.ts";
import { isReservedPath } from "../core/rules/reserved-path.ts";
import type { Clock } from "./clock.ts";
import { Isolate } from "./isolate.ts";
import type { RegionRuntime } from "./region-runtime.ts";
import { forward } from "./proxy.ts";
import { backgroundOf } from "./execution-context.ts";
import { frameTwin } from "../core/rules/socket-rules.ts";
import { holdSlot, type SlotHold } from "./concurrency.ts";
import { rateLimit } from "./rate-limit.ts";
import { requestReading } from "./request-reading.ts";
import { refuseBodyOnBodiless } from "./request-body.ts";
import type { UpstreamName } from "./routes.ts";
import type { GatewayEnv } from "./types.ts";
import type { Env } from "../env.ts";

/**
 * The request path, in order: read (route, and read as the upstream will) -> classify + count with
 * that upstream's rule table (rate-limit) -> forward (proxy), on the isolate's region runtime
 * (region-runtime.ts), which the handler puts in the context once (`c.var.runtime`, typed by
 * GatewayEnv's Variables) and every step takes from there. The steps run in one handler, handing
 * the request they read on as a value: each middleware layer, and matching a path against the
 * admin API's routes, would cost every request a dispatch.
 * Every response the gateway makes itself is JSON with a `detail` string, rendered from a
 * GatewayError in one place (src/http/render-error.ts); nothing escapes as a stack trace.
 *
 * @example
 * createGateway({ frontDoor: adminFrontDoor }); // the rule tables in rules/, the runtime's clock
 */
export function createGateway(options: GatewayOptions = {}) {
  const classifiers = { ...publishedClassifiers, ...(options.classifier && { "hosted-api": options.classifier }) };
  const tables = Object.fromEntries(Object.entries(classifiers).map(([name, c]) => [name, c.table])) as Record<UpstreamName, RuleTable>;
  // Everything this gateway keeps between requests: one per isolate in production, one per
  // gateway in a test that runs several side by side.
  const isolate = new Isolate({
    ...(options.clock && { clock: options.clock }),
    ...(options.isolateId && { id: options.isolateId }),
    ...(options.classifier && { tables }),
  });
  const frontDoor = options.frontDoor?.({ tables, runtime: (env) => isolate.runtime(env) });
  const read = requestReading({ classifiers });
  const limit = rateLimit({ classifiers });

  // One route for every path, so the linear router matches nothing.
  const app = new Hono<GatewayEnv>({ router: new LinearRouter() });
  app.all("*", async (c) => {
    // The front door first (the admin API on its own hosts): what it answers is never read as an
    // upstream's request, never counted.
    const answered = frontDoor?.(c);
    if (answered) return answered;
    // The isolate's runtime for this env (made by its first request), for every step below: a
    // misconfigured gateway answers every request with its setting's error here, before reading anything.
    c.set("runtime", isolate.runtime(c.env));
    // read -> classify + count -> forward
    const request = read(c);
    c.set("request", request);
    // The reserved prefix is never an upstream's, however its path was reached (a mount that
    // strips a prefix, a spelling the front door did not see): a 404, neither counted nor forwarded.
    if (isReservedPath(request.path)) throw new GatewayError("not-found", "Not Found");
    // Refused here, a GET or HEAD with a body is never counted (the proxy could not send it).
    await refuseBodyOnBodiless(c.req.raw);
    const runtime = c.get("runtime");
    const background = backgroundOf(c);
    const method = c.req.method;
    const counted = await limit(runtime, method, request, background);
    let headers = counted.headers;
    // A request its table caps among what one identity holds open (a socket, a stream) takes a
    // slot before it is forwarded, and gives it back when its answer ends (proxy.ts).
    const hold = tables[request.upstream].concurrency.length === 0 ? undefined : await holdSlot(runtime, { ...request, method, ...counted }, background);
    if (hold) headers = withHold(headers, hold);
    if (!request.socket) return forward(c, request, headers, undefined, hold);
    // A socket's frames are calls: each is counted as its HTTP twin on the upgrade's identity.
    const twin = frameTwin(request.socket, request.path);
    const call = { ...request, path: twin.path };
    const relay = {
      rule: request.socket.rule,
      count: () => limit(runtime, twin.method, call, background),
      idleMs: runtime.settings.socketIdleMs,
      maxPending: MAX_PENDING_FRAMES,
    };
    return forward(c, request, headers, relay, hold);
  });
  app.onError((error, c) => renderError(error, c.get("request")?.path));
  return app;
}

/** Client frames a socket may have waiting for their count; a client that outruns its counting is closed. */
const MAX_PENDING_FRAMES = 64;

/** The answer's rate-limit headers with the hold's policy and state among them (a list member each). */
function withHold(headers: Record<string, string> | undefined, hold: SlotHold): Record<string, string> {
  if (!headers) return { "ratelimit-policy": hold.policy, ratelimit: hold.rateLimit };
  return { ...headers, "ratelimit-policy": `${headers["ratelimit-policy"]}, ${hold.policy}`, ratelimit: `${headers.ratelimit}, ${hold.rateLimit}` };
}

/** What the request path keeps that an operator surface reads: the rule tables and the isolate's runtime for an env. */
export interface GatewayParts {
  readonly tables: Readonly<Record<UpstreamName, RuleTable>>;
  /** The serving isolate's runtime for `env` (throws SettingError while the gateway is misconfigured). */
  readonly runtime: (env: Env) => RegionRuntime;
}

/**
 * What answers a request before the request path reads it, or undefined to let it through. Made
 * once per gateway from its parts. The Worker's entry (src/worker.ts) puts the admin API here, so
 * the request path never imports the operator surface above it.
 */
export type FrontDoor = (parts: GatewayParts) => (c: Context<GatewayEnv>) => Promise<Response> | Response | undefined;

export interface GatewayOptions {
  /** Replaces the hosted API's table (tests of custom tables). */
  readonly classifier?: Classifier;
  /** The isolate's clock (tests drive it; the accuracy bench skews it). */
  readonly clock?: Clock;
  readonly isolateId?: string;
  readonly frontDoor?: FrontDoor;
}

export { executionContext } from "./execution-context.ts";
