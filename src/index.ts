import { createGateway } from "./gateway/app.ts";

export { RateLimiter } from "./durable-objects/rate-limiter.ts";
export { ConfigStore } from "./durable-objects/config-store.ts";
export { MetricsStore } from "./durable-objects/metrics-store.ts";
export { HostedApiEcho } from "./emulators/hosted-api-echo.ts";
export { ControlPlaneEmulator } from "./emulators/control-plane/entrypoint.ts";
export { ControlPlaneWorkspace } from "./emulators/control-plane/workspace-object.ts";
export { AgentServerEmulator } from "./emulators/agent-server/entrypoint.ts";
export { AgentServerState } from "./emulators/agent-server/state-object.ts";

export default createGateway();
