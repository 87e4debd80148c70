/**
 * Which workspace a request's credentials name, read the one way both API emulators read it: the
 * control plane scopes everything to it (control-plane/auth.ts), and a deployment's agent server
 * lets in only its own workspace's callers (agent-server/deployments/router.ts). Raw credentials
 * are digested here and never kept.
 *
 * As the hosted control plane: the key (`X-Api-Key`, or a bearer token) is the credential, and
 * `X-Tenant-Id` only chooses among the workspaces that key may use. A workspace id alone (shown
 * as `tenant_id` in records) opens nothing: without a key the request is 401, and a workspace the
 * key may not use is refused by the emulator that holds the workspace's keys (docs/control-plane-auth.md).
 */
import { z } from "zod";
import { uuid } from "./pydantic/uuid.ts";

/** `X-Tenant-Id`: a UUID as pydantic reads one, in its canonical spelling (it names the workspace object). */
const TenantId = uuid();

/** What a request's headers say about its workspace. */
export type WorkspaceCredential =
  | { readonly kind: "none"; readonly tenantOnly: boolean }
  | { readonly kind: "invalid-tenant"; readonly sent: string; readonly issues: z.core.$ZodIssue[] }
  | {
      readonly kind: "workspace";
      /** The workspace the request reads and writes: `X-Tenant-Id` when sent, else the key's own. */
      readonly workspaceId: string;
      /**
       * The key's own (default) workspace: also what names the key among a workspace's keys, so
       * no other digest of the key is stored.
       */
      readonly keyWorkspace: string;
      /** `X-Tenant-Id` chose another workspace than the key's own: the key must be one it admits. */
      readonly chosen: boolean;
    };

/** The 401's detail: the key is the credential, a workspace id alone is not one. */
export const NOT_AUTHENTICATED =
  "Not authenticated: send an X-Api-Key header or an Authorization: Bearer token (X-Tenant-Id only chooses among the key's workspaces).";

/** The 403's detail for an `X-Tenant-Id` naming a workspace the key may not use. */
export const NOT_YOUR_WORKSPACE = "The X-Tenant-Id header names a workspace this API key may not use.";

/**
 * The credential is `X-Api-Key` or `Authorization: Bearer <token>` (the key when both); the
 * workspace is `X-Tenant-Id` when sent (a UUID), otherwise the default workspace derived from the
 * key or token.
 */
export async function workspaceCredential(headers: Headers): Promise<WorkspaceCredential> {
  const tenant = headers.get("x-tenant-id")?.trim();
  const apiKey = headers.get("x-api-key")?.trim();
  const bearer = /^Bearer\s+(\S.*)$/i.exec(headers.get("authorization") ?? "")?.[1]?.trim();
  if (!apiKey && !bearer) return { kind: "none", tenantOnly: Boolean(tenant) };
  const keyWorkspace = await defaultWorkspaceId(apiKey ? `api-key:${apiKey}` : `bearer:${bearer}`);
  if (!tenant) return { kind: "workspace", workspaceId: keyWorkspace, keyWorkspace, chosen: false };
  const parsed = TenantId.safeParse(tenant);
  if (!parsed.success) return { kind: "invalid-tenant", sent: tenant, issues: parsed.error.issues };
  return { kind: "workspace", workspaceId: parsed.data, keyWorkspace, chosen: parsed.data !== keyWorkspace };
}

/** A stable UUID (version nibble 8, "custom") for the credential's default workspace: made from its SHA-256. */
export async function defaultWorkspaceId(credential: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(credential)));
  digest[6] = (digest[6]! & 0x0f) | 0x80;
  digest[8] = (digest[8]! & 0x3f) | 0x80;
  const hex = Array.from(digest.subarray(0, 16), (b) => b.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}
