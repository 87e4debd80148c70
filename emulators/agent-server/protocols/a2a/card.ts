import type { Context } from "hono";
import { graphSchemas } from "../../assistants/graph-schemas.ts";
import type { AgentServerEnv } from "../../env.ts";
import { findGraph } from "../../graphs/registry.ts";
import { resolveAssistantRef } from "../../ids.ts";
import { assistantsOf } from "../../state-access.ts";
import { serverInfo } from "../../system/info.ts";

/** The A2A revision the endpoint speaks (the real server's, and the document's `message/send` and `kind` parts). */
export const A2A_PROTOCOL_VERSION = "0.3.0";

/** A host name or address with an optional port, as X-Forwarded-Host may carry it. */
const HOST = /^(\[[0-9a-f:.]+\]|[a-z0-9-]+(\.[a-z0-9-]+)*)(:\d{1,5})?$/;
/** A mount path (`/agent-server`), as X-Forwarded-Prefix may carry it: plain segments only. */
const PREFIX = /^(\/[A-Za-z0-9._~-]+)+$/;

/**
 * Where the agent is called: the origin the client used (the gateway sets `X-Forwarded-Host` and
 * `-Proto`; a value that is no host or scheme is ignored), below the mount the request came
 * through when `X-Forwarded-Prefix` names one (a proxy that strips a prefix, as the local gateway
 * strips `/agent-server`, says so there), below `/deployments/<id>` for a deployment's own agent
 * server, then `/a2a/<assistant_id>`.
 */
function endpointUrl(c: Context<AgentServerEnv>, assistantId: string): string {
  const url = new URL(c.req.url);
  const sentHost = c.req.header("x-forwarded-host")?.trim().toLowerCase();
  const sentProto = c.req.header("x-forwarded-proto")?.trim().toLowerCase();
  const host = sentHost && HOST.test(sentHost) ? sentHost : url.host;
  const proto = sentProto === "http" || sentProto === "https" ? sentProto : url.protocol.slice(0, -1);
  const sentPrefix = c.req.header("x-forwarded-prefix")?.trim();
  const prefix = sentPrefix && PREFIX.test(sentPrefix) ? sentPrefix : "";
  const deployment = c.env.deploymentId === undefined ? "" : `/deployments/${c.env.deploymentId}`;
  return `${proto}://${host}${prefix}${deployment}/a2a/${assistantId}`;
}

/**
 * GET /.well-known/agent-card.json?assistant_id=...: the assistant as an A2A 0.3 agent, as the
 * real server describes it (one skill, the assistant itself; text and JSON in and out), except that
 * `capabilities.streaming` is false: the emulator does not serve `message/stream`.
 */
export async function agentCard(c: Context<AgentServerEnv>): Promise<Response> {
  const sent = c.req.query("assistant_id");
  const refuse = (message: string) => c.json({ detail: message, error: { code: -32602, message } }, 400);
  if (!sent) return refuse("Missing required query parameter: assistant_id");
  const assistantId = resolveAssistantRef(sent);
  using assistants = assistantsOf(c.env);
  const found = assistantId === undefined ? undefined : await assistants.find(assistantId);
  if (!found) return refuse(`Assistant '${sent}' not found`);
  const graph = findGraph(found.graph_id);
  const inputSchema = graph ? graphSchemas(graph).input_schema : { properties: {} };
  const properties = Object.keys((inputSchema.properties ?? {}) as Record<string, unknown>).sort();
  const description = found.description || `${found.name} assistant`;
  return c.json({
    protocolVersion: A2A_PROTOCOL_VERSION,
    name: found.name,
    description,
    url: endpointUrl(c, found.assistant_id),
    preferredTransport: "JSONRPC",
    capabilities: { streaming: false, pushNotifications: false, stateTransitionHistory: false },
    defaultInputModes: ["application/json", "text/plain"],
    defaultOutputModes: ["application/json", "text/plain"],
    skills: [
      {
        id: `${found.assistant_id}-main`,
        name: `${found.name} Capabilities`,
        description,
        tags: ["assistant", "langgraph"],
        examples: [],
        inputModes: ["application/json", "text/plain"],
        outputModes: ["application/json", "text/plain"],
        metadata: { inputSchema: { required: [], properties, supportsA2A: properties.includes("messages") } },
      },
    ],
    version: serverInfo().version,
  });
}
