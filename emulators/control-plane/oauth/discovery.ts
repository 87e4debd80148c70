import { randomSecret } from "./secrets.ts";
import type { McpDiscoverRequest } from "./schema.ts";
import type { ProviderDraft } from "./store.ts";

/**
 * `POST /v2/auth/providers/mcp-discover` without the network: the real service fetches the MCP
 * server's OAuth metadata and registers a client dynamically; the emulator reaches no other host,
 * so it derives what the MCP authorization specification prescribes for a server without metadata
 * discovery: the authorization server is the MCP server URL's origin, with `/authorize` and
 * `/token`, a public client (no secret, `token_endpoint_auth_method` "none") using PKCE with S256,
 * and a client id issued here as dynamic registration would (docs/control-plane-auth.md).
 *
 * @example
 * discoverMcpProvider({ provider_id: "linear", name: "Linear", mcp_server_url: "https://mcp.linear.app/sse" })
 * // auth_url "https://mcp.linear.app/authorize", token_url "https://mcp.linear.app/token", is_dynamic_client true
 */
export function discoverMcpProvider(request: McpDiscoverRequest): ProviderDraft {
  const origin = new URL(request.mcp_server_url).origin;
  return {
    provider_id: request.provider_id,
    name: request.name,
    client_id: `mcp-client-${randomSecret(12)}`,
    client_secret_digest: null,
    auth_url: `${origin}/authorize`,
    token_url: `${origin}/token`,
    uses_pkce: true,
    code_challenge_method: "S256",
    provider_type: null,
    mcp_server_url: request.mcp_server_url,
    token_endpoint_auth_method: "none",
    is_dynamic_client: true,
  };
}
