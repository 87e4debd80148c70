/**
 * The reference documents the emulators are held to, each served to the tests as its own module
 * (validators-plugin.ts): `virtual:agent-server-contract`, `virtual:control-plane-contract`.
 * vitest.config.ts registers the plugins; agent-server.ts and control-plane.ts bind the checker.
 */
// Vendored, held identical to ../shared/reference by test/unit/docs/reference-documents.test.ts: the
// agent server's 2026 document beside the emulator, which serves it as its /openapi.json (so what
// the emulator describes and what it is held to are one file); the control plane's in test/fixtures/reference.
import agentServerDocument from "../../../emulators/agent-server/system/agent-server.2026.openapi.json" with { type: "json" };
import controlPlaneDocument from "../../fixtures/reference/control-plane.openapi.json" with { type: "json" };
import { amendAgentServerDocument } from "./agent-server-amendments.ts";
import { amendControlPlaneDocument } from "./control-plane-amendments.ts";
import { contractPlugin } from "./validators-plugin.ts";

/**
 * `virtual:agent-server-contract`: ../shared/reference/agent-server.2026.openapi.json (64 operations),
 * which supersedes the older copy (nothing removed); docs/agent-server.md, "The reference document".
 */
export const agentServerContract = () => contractPlugin({ name: "agent-server", document: agentServerDocument, amend: amendAgentServerDocument });

/** `virtual:control-plane-contract`: ../shared/reference/control-plane.openapi.json. */
export const controlPlaneContract = () => contractPlugin({ name: "control-plane", document: controlPlaneDocument, amend: amendControlPlaneDocument });
