/** The agent-server contract: ../shared/reference/agent-server.2026.openapi.json (contract.ts, documents.ts). */
import * as compiled from "virtual:agent-server-contract";
import { createContract } from "./contract.ts";

export { ContractViolation, type Exchange } from "./contract.ts";
export const { findOperation, checkResponse } = createContract(compiled);
