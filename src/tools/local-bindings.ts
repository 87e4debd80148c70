/**
 * The variables every local run of the gateway sets on top of its wrangler environment: the
 * Workers-runtime tests (vitest.config.ts), the load test's own gateway, and `npm start` (whose
 * `--var` flags in package.json are held to this list by test/unit/local-bindings.test.ts).
 */
export const LOCAL_BINDINGS = {
  // workerd cannot emulate Durable Object jurisdictions.
  LIMITER_JURISDICTION: "none",
  // The us and eu environments name no upstream: a local run opts in to the bundled ones.
  HOSTED_API_ORIGIN: "bundled",
  CONTROL_PLANE_ORIGIN: "bundled",
  AGENT_SERVER_ORIGIN: "bundled",
  // One port for every upstream: chosen by mount prefix (src/gateway/routes.ts), not by host.
  ROUTING: "paths",
} as const;
