import { Hono } from "hono";
import type { ControlPlaneEnv } from "../auth.ts";

/** Routes under /v2/sandboxes/templates (to be implemented). */
export const templateRoutes = new Hono<ControlPlaneEnv>();
