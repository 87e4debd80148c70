import { Hono } from "hono";
import type { ControlPlaneEnv } from "../auth.ts";

/** Routes under /v2/deployments (to be implemented). */
export const deploymentRoutes = new Hono<ControlPlaneEnv>();
