import type { RateLimiter } from "./durable-objects/rate-limiter.ts";
import type { ControlPlaneWorkspace } from "./emulators/control-plane/workspace-object.ts";
import type { AgentServerState } from "./emulators/agent-server/state-object.ts";

/** Bindings and variables of one regional environment (wrangler.toml `[env.us]` / `[env.eu]`). */
export interface Env {
  /** "us" or "eu": selects the rule limits and the Durable Object jurisdiction. */
  REGION: string;
  LIMITER: DurableObjectNamespace<RateLimiter>;
  /** Jurisdiction of the counter objects: the region itself, or "none" where it cannot be emulated (local). */
  LIMITER_JURISDICTION?: string;
  /** Local upstreams: service bindings (emulators in this bundle, or other Workers). */
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
  LIMITER_TIMEOUT_MS?: string;
  UPSTREAM_TIMEOUT_MS?: string;
  /** Control-plane emulator: one object per workspace. */
  CONTROL_PLANE_WORKSPACES: DurableObjectNamespace<ControlPlaneWorkspace>;
  /** Control-plane emulator: milliseconds per revision status step (default 500). */
  CONTROL_PLANE_REVISION_STEP_MS?: string;
  /** Agent-server emulator: its state object. */
  AGENT_SERVER_STATE: DurableObjectNamespace<AgentServerState>;
  /** Agent-server emulator: pause between node steps of a run, in ms (default 0). */
  AGENT_SERVER_STEP_DELAY_MS?: string;
  /** "refuse" (us and eu) or "allow": whether the development settings below may be used. */
  DEV_SETTINGS?: string;
  /** Development only: divide every rule interval by this (load tests of hour-long windows). */
  TIME_SCALE?: string;
  /** Development only: "fixed-window" swaps in a deliberately broken counter for the load test. */
  LIMITER_ALGORITHM?: string;
  /** Secret for HMAC-SHA-256 of identities; plain SHA-256 when unset. Set with `wrangler secret put`. */
  IDENTITY_HMAC_SECRET?: string;
}

type TollgateEnv = Env;
declare global {
  namespace Cloudflare {
    // Types `env` from "cloudflare:workers" and "cloudflare:test".
    interface Env extends TollgateEnv {}
    // Types `exports` from "cloudflare:workers" (the gateway app and the entrypoints).
    interface GlobalProps {
      mainModule: typeof import("./index.ts");
      durableNamespaces: "RateLimiter" | "ControlPlaneWorkspace" | "AgentServerState";
    }
  }
}
