// Helpers of the /v2/auth tests (oauth*.test.ts): a provider, an authorization followed as a
// browser would follow it, and the checks that no secret comes back.
import { expect } from "vitest";
import { controlPlane } from "./support.ts";

export const CLIENT_SECRET = "oauth-client-secret-do-not-leak-7731";
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
export const ISO_DATE_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;

export const providerBody = (providerId = `github-${crypto.randomUUID().slice(0, 8)}`, extra: Record<string, unknown> = {}) => ({
  provider_id: providerId,
  name: "GitHub (local dev)",
  client_id: "Iv1.client-id",
  client_secret: CLIENT_SECRET,
  auth_url: "https://github.com/login/oauth/authorize",
  token_url: "https://github.com/login/oauth/access_token",
  ...extra,
});

/** Creates a provider in the workspace and answers it. */
export async function createProvider(workspace: string, body: Record<string, unknown> = providerBody()) {
  const res = await controlPlane("POST", "/v2/auth/providers", { workspace, body });
  expect(res.status).toBe(200);
  return res.body;
}

/** POST /v2/auth/authenticate. */
export const authenticate = (workspace: string, body: Record<string, unknown>) => controlPlane("POST", "/v2/auth/authenticate", { workspace, body });

/** Follows an authorization URL as a browser does: a GET with no credential. */
export function follow(url: string) {
  const target = new URL(url);
  return controlPlane("GET", target.pathname + target.search);
}

/** Authenticates, follows the URL, and answers the token that `wait` then gives, with its id. */
export async function grantToken(workspace: string, provider: string, extra: Record<string, unknown> = {}) {
  const started = await authenticate(workspace, { provider, scopes: ["repo"], ...extra });
  expect(started.status).toBe(200);
  expect(started.body.status).toBe("pending");
  expect((await follow(started.body.url)).status).toBe(200);
  const waited = await controlPlane("GET", `/v2/auth/wait/${started.body.auth_id}?timeout=0`, { workspace });
  expect(waited.body.status).toBe("completed");
  const again = await authenticate(workspace, { provider, scopes: ["repo"], ...extra });
  expect(again.body).toMatchObject({ status: "completed", token: waited.body.token });
  return { token: waited.body.token as string, tokenId: again.body.metadata.token_id as string, authId: started.body.auth_id as string };
}

/** No answer text holds the secret (or token) in clear. */
export function expectNoSecret(body: unknown, ...secrets: string[]): void {
  const text = JSON.stringify(body ?? null);
  for (const secret of [CLIENT_SECRET, ...secrets]) expect(text).not.toContain(secret);
}
