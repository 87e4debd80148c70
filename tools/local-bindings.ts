/**
 * The variables every local run of the gateway sets on top of its wrangler environment: the
 * Workers-runtime tests (vitest.config.ts), the load test's own gateway, and `npm start` (whose
 * `--var` flags in package.json are held to this list by test/unit/tools/local-bindings.test.ts).
 */
export const LOCAL_BINDINGS = {
  // workerd cannot emulate Durable Object jurisdictions.
  COUNTER_JURISDICTION: "none",
  // A local run calls each upstream through its service binding to the emulator Worker it binds.
  HOSTED_API_ORIGIN: "service",
  CONTROL_PLANE_ORIGIN: "service",
  AGENT_SERVER_ORIGIN: "service",
  // One port for every upstream: chosen by mount prefix (src/gateway/routes.ts), not by host.
  ROUTING: "paths",
  // The admin API and its dashboard on an origin of their own (docs/admin.md): browsers and curl
  // resolve every *.localhost name to the loopback address, so no setup is needed.
  ADMIN_HOSTS: "admin.localhost",
} as const;
