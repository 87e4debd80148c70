import { runInDurableObject } from "cloudflare:test";
import { stateOf } from "../../../emulators/agent-server/state-access.ts";
import type { AgentServerState } from "../../../emulators/agent-server/state-object.ts";
import { agentServerEnv } from "../support/emulator-env.ts";

/**
 * Lets time pass for the agent server's state object (its store TTLs and crons) without waiting:
 * its clock is moved forward. Tests in one file share the object, so a test only ever relies on
 * time having passed, never on how little.
 */
export async function advanceClock(ms: number): Promise<void> {
  await runInDurableObject(stateObject(), (state) => state.clock.advance(ms));
}

/**
 * A state object's stub typed by its class, for `runInDurableObject` to reach its clock and stores
 * (the environment types the namespace by its RPC surface, emulators/agent-server/state-rpc.ts).
 */
export function stateObject(name?: string): DurableObjectStub<AgentServerState> {
  const stub = name === undefined ? stateOf(agentServerEnv) : agentServerEnv.AGENT_SERVER_STATE.getByName(name);
  return stub as unknown as DurableObjectStub<AgentServerState>;
}

export const MINUTE_MS = 60_000;
