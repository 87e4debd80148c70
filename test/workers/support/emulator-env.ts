import { env } from "cloudflare:workers";
import type { AgentServerBindings } from "../../../emulators/agent-server/env.ts";
import type { ControlPlaneBindings } from "../../../emulators/control-plane/env.ts";

// `env` is typed as the gateway's (src/env.ts declares it for the whole program); in an emulator's
// own project (vitest.config.ts) the test Worker is that emulator, and these are its bindings.

/** The control-plane emulator's environment (project emulator-control-plane). */
export const controlPlaneEnv = env as unknown as ControlPlaneBindings;

/** The agent-server emulator's environment (project emulator-agent-server). */
export const agentServerEnv = env as unknown as AgentServerBindings;

/** The emulator whose own project runs this file (the shared emulator tests run in both). */
export const THIS_EMULATOR: "control-plane" | "agent-server" = "CONTROL_PLANE_WORKSPACES" in env ? "control-plane" : "agent-server";
