// The hosted-API stand-in as a Worker of its own (emulators/hosted-api/wrangler.toml): bound to
// the gateway as HOSTED_API in local runs, or deployed alone (docs/emulators.md).
import { HostedApiEcho } from "./echo.ts";

export { HostedApiEcho };

export default HostedApiEcho;
