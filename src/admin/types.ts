import type { Env } from "../env.ts";
import type { Isolate } from "../gateway/isolate.ts";
import type { AdminRole } from "./tokens.ts";

/** Hono environment of the admin API. */
export interface AdminEnv {
  Bindings: Env;
  Variables: {
    /** The admin token's name (adminAuth): who the audit log says made a change. */
    actor: string;
    /** What the token may do (adminAuth): "read" tokens only GET. */
    role: AdminRole;
    /** The memory of the isolate serving it (src/gateway/isolate.ts), the gateway's own. */
    isolate: Isolate;
  };
}
