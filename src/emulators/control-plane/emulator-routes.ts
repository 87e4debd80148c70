import { Hono } from "hono";
import type { ControlPlaneEnv } from "./auth.ts";

/** Emulator-only switches under /v2/_emulator (to be implemented). */
export const emulatorRoutes = new Hono<ControlPlaneEnv>();
