import { Hono } from "hono";
import type { ControlPlaneEnv } from "../auth.ts";

/** Routes under /v2/listeners (to be implemented). */
export const listenerRoutes = new Hono<ControlPlaneEnv>();
