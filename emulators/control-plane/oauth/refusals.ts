import { refuse } from "../../shared/result.ts";

// The reference document lists only 422 for these operations; the rest are the refusals a FastAPI
// service answers as `{"detail": "..."}` (docs/control-plane-auth.md, "Errors"). Each message
// names what was not found or not allowed, and never carries a secret.

/** 404: no provider with this id in the workspace. */
export const providerNotFound = (providerId: string) => refuse(404, `OAuth provider '${providerId}' not found.`);

/** 409: the workspace already has a provider with this id. */
export const duplicateProvider = (providerId: string) => refuse(409, `OAuth provider '${providerId}' already exists.`);

/** 404: no token with this id in the workspace. */
export const tokenNotFound = (tokenId: string) => refuse(404, `OAuth token '${tokenId}' not found.`);

/** 400: `token_id` names a token of another provider. */
export const tokenOfAnotherProvider = (tokenId: string, providerId: string) =>
  refuse(400, `OAuth token '${tokenId}' does not belong to provider '${providerId}'.`);

/** 404: no connection with this id on the agent. */
export const connectionNotFound = (agentId: string, connectionId: string) => refuse(404, `Connection '${connectionId}' not found for agent '${agentId}'.`);

/** 409: the agent is already connected to this token. */
export const duplicateConnection = (agentId: string, tokenId: string) => refuse(409, `Agent '${agentId}' is already connected to OAuth token '${tokenId}'.`);

/** 400: the redirect carries no code or no state. */
export const missingCodeOrState = () => refuse(400, "Missing code or state: follow the url that POST /v2/auth/authenticate answered.");

/**
 * 400: the state names no pending authorization of this provider (unknown, expired, already
 * completed, or another workspace's), or the code is not the one issued for it.
 */
export const invalidState = () => refuse(400, "Invalid or expired OAuth state: start again with POST /v2/auth/authenticate.");

/** 400: the provider answered the redirect with an error instead of a code. */
export const providerError = (error: string, description: string | undefined) =>
  refuse(400, `OAuth authorization failed at the provider: ${error}${description ? ` (${description})` : ""}.`);
