/** A setting of the emulator is unusable; rendered as a 500 whose detail names it. */
export class AgentServerConfigError extends Error {
  override name = "AgentServerConfigError";
}

/**
 * AGENT_SERVER_STEP_DELAY_MS: the pause before each node step of a run, in milliseconds
 * (default 0). Lets a client watch events arrive one by one.
 */
export function stepDelayMs(env: { readonly AGENT_SERVER_STEP_DELAY_MS?: string | undefined }): number {
  const raw = env.AGENT_SERVER_STEP_DELAY_MS?.trim() ?? "";
  if (raw === "") return 0;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0 || value > 60_000) {
    throw new AgentServerConfigError(`AGENT_SERVER_STEP_DELAY_MS must be a whole number of milliseconds from 0 to 60000, got '${raw}'.`);
  }
  return value;
}
