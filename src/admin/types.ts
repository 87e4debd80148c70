import type { Env } from "../env.ts";

/** Hono environment of the admin API. */
export interface AdminEnv {
  Bindings: Env;
  Variables: {
    /** The admin token's name (adminAuth): who the audit log says made a change. */
    actor: string;
  };
}
