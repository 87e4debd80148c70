import type { CounterObject } from "./durable-objects/counter-object.ts";
import type { OverridesStore } from "./durable-objects/overrides-store.ts";
import type { MetricsStore } from "./durable-objects/metrics-store.ts";

/**
 * Bindings and variables of one regional environment (wrangler.toml `[env.us]` / `[env.eu]`). The
 * emulators are Workers of their own, each with its own environment type (emulators/<name>/env.ts).
 */
export interface Env {
  /** "us" or "eu": selects the rule limits and the Durable Object jurisdiction. */
  REGION: string;
  COUNTERS: DurableObjectNamespace<CounterObject>;
  /** Jurisdiction of the counter objects: the region itself, or "none" where it cannot be emulated (local). */
  COUNTER_JURISDICTION?: string;
  /** Local upstreams: service bindings to the emulator Workers, added by the local runs only (docs/emulators.md). */
  HOSTED_API?: Fetcher;
  CONTROL_PLANE?: Fetcher;
  AGENT_SERVER?: Fetcher;
  /** Production upstreams: origin URLs; when set they win over the service binding. */
  HOSTED_API_ORIGIN?: string;
  CONTROL_PLANE_ORIGIN?: string;
  AGENT_SERVER_ORIGIN?: string;
  /** "hosts" (default, deployed): the upstream is chosen by host from UPSTREAM_HOSTS; "paths": by local mount prefix (npm start, tests). */
  ROUTING?: string;
  /** The hosts this gateway serves and their upstreams: `api.example.com=hosted-api, *.agents.example.com=agent-server`. */
  UPSTREAM_HOSTS?: string;
  /** "open" (default): a failed counter lets the request through. "closed": 503. */
  FAIL_MODE?: string;
  COUNTER_TIMEOUT_MS?: string;
  UPSTREAM_TIMEOUT_MS?: string;
  /** "refuse" (us and eu) or "allow": whether the development settings below may be used. */
  DEV_SETTINGS?: string;
  /** Development only: divide every rule interval by this (load tests of hour-long windows). */
  TIME_SCALE?: string;
  /** Development only: "fixed-window" swaps in a deliberately broken counter for the load test. */
  LIMITER_ALGORITHM?: string;
  /** Secret for HMAC-SHA-256 of identities; plain SHA-256 when unset. Set with `wrangler secret put`. */
  IDENTITY_HMAC_SECRET?: string;
  /** Runtime configuration (overrides and their audit log): one object per region. */
  OVERRIDES: DurableObjectNamespace<OverridesStore>;
  /** Metrics totals every isolate adds to: one object per region. */
  METRICS: DurableObjectNamespace<MetricsStore>;
  /** Workers Analytics Engine dataset: one data point per decision and per upstream answer (production). */
  ANALYTICS?: AnalyticsEngineDataset;
  /** npm start only: the session's secret its local edge sends; set, a request without it is refused (src/gateway/local-edge-guard.ts). */
  LOCAL_EDGE_SECRET?: string;
  /** Secret: the admin API's token (named "admin" in the audit log); unset, the admin API answers 404. */
  ADMIN_TOKEN?: string;
  /** Secret: more admin tokens, named for the audit log: `alice=<token>, oncall=<token>`. */
  ADMIN_TOKENS?: string;
  /** Secret: read-only admin tokens (GET only, e.g. metrics scraping), named the same way: `prometheus=<token>`. */
  ADMIN_READ_TOKENS?: string;
  /** The hosts the admin API answers on, and nothing else does: `tollgate-admin.us.example.com`; unset, it is off (docs/admin.md). */
  ADMIN_HOSTS?: string;
  /** How old an isolate's copy of the overrides may get, in ms (default 5000): the bound on applying a change. */
  OVERRIDES_REFRESH_MS?: string;
  /** Share of admissions logged, 0..1 (default 0.01); denials, blocks and exemptions are always logged. */
  DECISION_LOG_SAMPLE?: string;
  /** At most how often an isolate hands its metrics to the region's metrics object, in ms (default 10000). */
  METRICS_FLUSH_MS?: string;
}

type TollgateEnv = Env;
declare global {
  namespace Cloudflare {
    // Types `env` from "cloudflare:workers" and "cloudflare:test".
    interface Env extends TollgateEnv {}
  }
}
