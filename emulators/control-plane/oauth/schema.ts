/**
 * Request shapes of /v2/auth as zod schemas, written after the reference's
 * OAuthProviderCreateRequest, OAuthProviderUpdateRequest, MCPOAuthProviderCreateRequest,
 * AuthAuthenticateRequest, OAuthFinalizeRequest, OAuthTokenUpdateRequest and
 * CreateAgentConnectionRequest. Unknown fields are dropped, as pydantic does by default.
 * Violations become FastAPI 422s through `validate()`.
 */
import { z } from "zod";
import { optionalField } from "../../shared/pydantic/optional.ts";
import { queryInteger } from "../../shared/pydantic/query.ts";
import { uuid } from "../../shared/pydantic/uuid.ts";
import { checkedString } from "../../shared/pydantic/value-error.ts";

export const PROVIDER_TYPES = ["microsoft", "salesforce", "slack"] as const;
export const TOKEN_ENDPOINT_AUTH_METHODS = ["none", "client_secret_basic", "client_secret_post"] as const;

/**
 * A provider id is a path segment of every provider URL and of the callback URL the provider
 * redirects to: one that cannot be spelled there could be created but never reached again.
 */
const PROVIDER_ID = /^[A-Za-z0-9._~-]{1,128}$/;
const providerId = () =>
  checkedString((value) =>
    PROVIDER_ID.test(value) && value !== "." && value !== ".."
      ? undefined
      : "provider_id must be 1 to 128 letters, digits, '-', '_', '.' or '~': it is a path segment of the provider's URLs",
  );

/** An absolute http(s) URL: the only kind a browser can be sent to or a token requested from. */
export function httpUrlProblem(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return "must be an absolute http or https URL";
  }
  return url.protocol === "https:" || url.protocol === "http:" ? undefined : "must be an absolute http or https URL";
}
const httpUrl = () => checkedString(httpUrlProblem);

/** OAuthProviderCreateRequest. The client secret is kept only as a digest (store.ts). */
export const ProviderCreateRequest = z.object({
  provider_id: providerId(),
  name: z.string(),
  client_id: z.string(),
  client_secret: z.string().nullable().default(null),
  auth_url: httpUrl(),
  token_url: httpUrl(),
  uses_pkce: z.boolean().default(false),
  code_challenge_method: z.string().default("S256"),
  provider_type: z.enum(PROVIDER_TYPES).nullable().default(null),
  token_endpoint_auth_method: z.enum(TOKEN_ENDPOINT_AUTH_METHODS).default("client_secret_post"),
});
export type ProviderCreateRequest = z.output<typeof ProviderCreateRequest>;

/** OAuthProviderUpdateRequest: absent or null leaves a field as it is. */
export const ProviderUpdateRequest = z.object({
  name: optionalField(z.string()),
  client_id: optionalField(z.string()),
  client_secret: optionalField(z.string()),
  auth_url: optionalField(httpUrl()),
  token_url: optionalField(httpUrl()),
  uses_pkce: optionalField(z.boolean()),
  code_challenge_method: optionalField(z.string()),
});
export type ProviderUpdateRequest = z.output<typeof ProviderUpdateRequest>;

/** MCPOAuthProviderCreateRequest (discovery.ts says what the emulator derives from it). */
export const McpDiscoverRequest = z.object({
  provider_id: providerId(),
  name: z.string(),
  mcp_server_url: httpUrl(),
});
export type McpDiscoverRequest = z.output<typeof McpDiscoverRequest>;

/** AuthAuthenticateRequest. */
export const AuthenticateRequest = z.object({
  user_id: z.string().nullable().default(null),
  ls_user_id: z.string().nullable().default(null),
  agent_id: z.string().nullable().default(null),
  provider: z.string(),
  scopes: z.array(z.string()),
  use_agent_builder_public_oauth: z.boolean().default(false),
  force_new: z.boolean().default(false),
  token_id: uuid().nullable().default(null),
  is_default: z.boolean().default(true),
});
export type AuthenticateRequest = z.output<typeof AuthenticateRequest>;

/** OAuthFinalizeRequest: what the frontend relays from the provider's redirect. */
export const FinalizeRequest = z.object({ code: z.string(), state: z.string() });

/** OAuthTokenUpdateRequest: absent leaves a field; a null label clears it. */
export const TokenUpdateRequest = z.object({
  provider_account_label: z.string().nullable().optional(),
  is_default: optionalField(z.boolean()),
});
export type TokenUpdateRequest = z.output<typeof TokenUpdateRequest>;

/** CreateAgentConnectionRequest. */
export const ConnectionCreateRequest = z.object({ oauth_token_id: z.string() });

// Path and query parameters. Ids are strings in the document, so an id the emulator never issued
// is a 404, whatever its spelling.
export const ProviderPath = z.object({ provider_id: z.string() });
export const TokenPath = z.object({ token_id: z.string() });
export const AgentPath = z.object({ agent_id: z.string() });
export const ConnectionPath = z.object({ agent_id: z.string(), connection_id: z.string() });
export const AuthPath = z.object({ auth_id: z.string() });

/** `GET /v2/auth/tokens`: the provider filter is optional. */
export const TokenListQuery = z.object({ provider_id: z.string().optional() });
/** `GET /v2/auth/tokens/exists` and `DELETE /v2/auth/tokens`: the provider is required. */
export const ProviderQuery = z.object({ provider_id: z.string() });

/** `GET /v2/auth/wait/{auth_id}?timeout=`: seconds, default 30 (bounded in flow.ts). */
export const WaitQuery = z.object({ timeout: queryInteger(z.int()).default(30) });

/** The provider's redirect: `GET /v2/auth/callback/{provider_id}` (and setup, below). */
export const CallbackQuery = z.object({
  code: z.string().optional(),
  state: z.string().optional(),
  error: z.string().optional(),
  error_description: z.string().optional(),
});

/** `GET /v2/auth/setup/{provider_id}`: the callback's parameters plus a GitHub App's. */
export const SetupQuery = CallbackQuery.extend({
  setup_action: z.string().optional(),
  installation_id: queryInteger(z.int()).optional(),
});
