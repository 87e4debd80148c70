import type { Env } from "../env.ts";
import type { RuleTable } from "../core/rules/load.ts";
import type { UpstreamName } from "../core/rules/upstreams.ts";
import type { RegionRuntime } from "../gateway/runtime.ts";
import type { AdminRole } from "./tokens.ts";

/** Hono environment of the admin API. */
export interface AdminEnv {
  Bindings: Env;
  Variables: {
    /** The admin token's name (adminAuth): who the audit log says made a change. */
    actor: string;
    /** What the token may do (adminAuth): "read" tokens only GET. */
    role: AdminRole;
  };
}

/**
 * What the admin API's routes work with, handed to each route's factory (as Unkey's routes list
 * their services): the rule tables and the isolate's runtime for the request's env
 * (src/gateway/runtime.ts), never the request path's modules themselves.
 */
export interface AdminDeps {
  readonly tables: Readonly<Record<UpstreamName, RuleTable>>;
  /** The serving isolate's runtime for `env` (its settings checked: throws SettingError while misconfigured). */
  readonly runtime: (env: Env) => RegionRuntime;
}
