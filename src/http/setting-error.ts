/**
 * A setting (a wrangler variable or secret) is missing or unusable: a deployment mistake, never the
 * client's. Each surface answers it in its own shape, its message naming the setting so the fix is
 * in the answer itself: the gateway as a problem (500, or 503 for a setting it may not serve
 * without, such as a secret not yet put), an emulator as FastAPI's `{"detail": ...}` 500. Thrown in
 * the Worker that serves the request, not in a Durable Object: across RPC an error loses its class.
 */
export class SettingError extends Error {
  override name = "SettingError";
  /** The variable to fix, e.g. `UPSTREAM_HOSTS`. */
  readonly setting: string;
  readonly status: 500 | 503;

  constructor(setting: string, message: string, status: 500 | 503 = 500) {
    super(message);
    this.setting = setting;
    this.status = status;
  }
}
