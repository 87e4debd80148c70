// The agent-server emulator as a Worker of its own (emulators/agent-server/wrangler.toml): bound
// to the gateway as AGENT_SERVER in local runs, or deployed alone as a sandbox (docs/emulators.md).
import { createAgentServer } from "./app.ts";

export { AgentServerState } from "./state-object.ts";

export default createAgentServer();
