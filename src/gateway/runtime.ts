/**
 * The request path's public surface for the operator surface (src/admin): the one module of
 * src/gateway the admin API imports (the import lint holds it to that, .oxlintrc.json). The admin
 * API's routes receive the isolate's RegionRuntime as their dependency (src/admin/types.ts,
 * AdminDeps); what else they share with the request path (a setting parsed once per env, which
 * upstream a host is, whole seconds rounded up, the explain report) is named here, so what admin
 * may use of the gateway is one list.
 */
export type { RegionRuntime } from "./region-runtime.ts";
export type { Standing, ThrottleAddress } from "./admin-throttle.ts";
export { executionContext, type FrontDoor } from "./app.ts";
export { cachedPerEnv } from "./settings.ts";
export { ceilSeconds } from "./rate-limit-headers.ts";
export { parseUpstreamHosts, upstreamForHost } from "./routes.ts";
export { explainReport } from "./explain-report.ts";
