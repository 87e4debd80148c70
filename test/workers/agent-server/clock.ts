import { runInDurableObject } from "cloudflare:test";
import { stateOf, type AgentServerState } from "../../../emulators/agent-server/state-object.ts";
import { agentServerEnv } from "../support/emulator-env.ts";

/**
 * Lets time pass for the agent server's state object (its store TTLs and crons) without waiting:
 * its clock is moved forward. Tests in one file share the object, so a test only ever relies on
 * time having passed, never on how little.
 */
export async function advanceClock(ms: number): Promise<void> {
  await runInDurableObject(stateOf(agentServerEnv), (state: AgentServerState) => state.clock.advance(ms));
}

export const MINUTE_MS = 60_000;
