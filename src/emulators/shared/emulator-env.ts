import type { Env } from "../../env.ts";

/** The Hono environment of an emulator's routes (a control plane adds its request variables). */
export interface EmulatorEnv {
  Bindings: Env;
}
