/** The control-plane contract: ../shared/reference/control-plane.openapi.json (contract.ts). */
import * as compiled from "virtual:control-plane-contract";
import { createContract } from "./contract.ts";

export { ContractViolation, type Exchange } from "./contract.ts";
export const { operations, findOperation, checkResponse } = createContract(compiled);
