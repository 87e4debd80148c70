import { SettingError } from "../../src/http/setting-error.ts";

/**
 * A whole number of milliseconds from 0 to `max`, read strictly: absent or blank is `fallback`,
 * anything else (a sign, a fraction, `1e3`, `0x10`, a unit) throws a {@link SettingError}.
 *
 * @example
 * millisecondsSetting("AGENT_SERVER_STEP_DELAY_MS", env.AGENT_SERVER_STEP_DELAY_MS, { fallback: 0, max: 60_000 })
 */
export function millisecondsSetting(setting: string, raw: string | undefined, range: { readonly fallback: number; readonly max: number }): number {
  const text = raw?.trim() ?? "";
  if (text === "") return range.fallback;
  const value = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!(value <= range.max)) {
    throw new SettingError(setting, `${setting} must be a whole number of milliseconds from 0 to ${range.max}, got '${text}'.`);
  }
  return value;
}
