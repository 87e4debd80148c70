import { graphIds } from "../graphs/registry.ts";

/**
 * The API version the emulator answers as: the reference document's (`info.version`), since that
 * document is what it is built and tested against. `langgraph_py_version` names no Python
 * library, because none runs here.
 */
const API_VERSION = "0.1.0";

/**
 * GET /info: the real server's fields (`version`, `langgraph_py_version`, `flags`, `host`) and the
 * document's `metadata`, which says what this deployment is: the emulator and its graphs.
 */
export function serverInfo() {
  return {
    version: API_VERSION,
    langgraph_py_version: "emulated",
    flags: {
      assistants: true,
      crons: true,
      langsmith: false,
      langsmith_tracing_replicas: false,
      langsmith_tracing_session_on_runs: false,
    },
    host: { kind: "emulator", project_id: null, host_revision_id: null, revision_id: null, tenant_id: null },
    metadata: { emulator: "tollgate agent-server emulator", graphs: graphIds() },
  };
}
