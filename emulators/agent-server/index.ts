// The agent-server emulator as a Worker of its own (emulators/agent-server/wrangler.toml): bound
// to the gateway as AGENT_SERVER in local runs, or deployed alone as a sandbox (docs/emulators.md).
// Each deployment of the control-plane emulator gets an agent server of its own below
// /deployments/<id> (docs/deployment-agent-servers.md).
import { createAgentServer } from "./app.ts";
import { withDeployments } from "./deployments/router.ts";

export { AgentServerState } from "./state-object.ts";
export { DeploymentRegistry } from "./deployments/registry.ts";
export { DeploymentProvisioning } from "./deployments/provisioning.ts";

export default { fetch: withDeployments(createAgentServer()) } satisfies ExportedHandler<Parameters<ReturnType<typeof withDeployments>>[1]>;
