import { millisecondsSetting } from "../shared/settings.ts";

/**
 * AGENT_SERVER_STEP_DELAY_MS: the pause before each node step of a run, in milliseconds
 * (default 0, at most a minute). Lets a client watch events arrive one by one. A value that is
 * not whole milliseconds is a SettingError (a 500 naming the setting), never a guess.
 */
export function stepDelayMs(env: { readonly AGENT_SERVER_STEP_DELAY_MS?: string | undefined }): number {
  return millisecondsSetting("AGENT_SERVER_STEP_DELAY_MS", env.AGENT_SERVER_STEP_DELAY_MS, { fallback: 0, max: 60_000 });
}
