/**
 * The reference documents the emulators are held to, each served to the tests as its own module
 * (validators-plugin.ts): `virtual:agent-server-contract`, `virtual:control-plane-contract`.
 * vitest.config.ts registers the plugins; agent-server.ts and control-plane.ts bind the checker.
 */
// Vendored (test/fixtures/reference), held identical to ../shared/reference by test/unit/docs/reference-documents.test.ts.
import agentServerDocument from "../../fixtures/reference/agent-server.openapi.json" with { type: "json" };
import controlPlaneDocument from "../../fixtures/reference/control-plane.openapi.json" with { type: "json" };
import { amendAgentServerDocument } from "./agent-server-amendments.ts";
import { amendControlPlaneDocument } from "./control-plane-amendments.ts";
import { contractPlugin } from "./validators-plugin.ts";

/** `virtual:agent-server-contract`: ../shared/reference/agent-server.openapi.json. */
export const agentServerContract = () => contractPlugin({ name: "agent-server", document: agentServerDocument, amend: amendAgentServerDocument });

/** `virtual:control-plane-contract`: ../shared/reference/control-plane.openapi.json. */
export const controlPlaneContract = () => contractPlugin({ name: "control-plane", document: controlPlaneDocument, amend: amendControlPlaneDocument });
