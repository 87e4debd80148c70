/**
 * A setting (a wrangler variable) of an emulator is unusable. The app renders it as a 500 whose
 * detail is this message, which names the setting, so the fix is in the answer itself. Thrown in
 * the Worker that serves the request, not in a Durable Object: across RPC an error loses its class.
 */
export class SettingError extends Error {
  override name = "SettingError";
  /** The variable to fix, e.g. `AGENT_SERVER_STEP_DELAY_MS`. */
  readonly setting: string;

  constructor(setting: string, message: string) {
    super(message);
    this.setting = setting;
  }
}

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
