// The control-plane emulator as a Worker of its own (emulators/control-plane/wrangler.toml): bound
// to the gateway as CONTROL_PLANE in local runs, or deployed alone as a sandbox (docs/emulators.md).
import { createControlPlane } from "./app.ts";

export { ControlPlaneWorkspace } from "./workspace-object.ts";

export default createControlPlane();
