/**
 * Which workspace a request's credentials name, read the one way both API emulators read it: the
 * control plane scopes everything to it (control-plane/auth.ts), and a deployment's agent server
 * lets in only its own workspace's callers (agent-server/deployments/router.ts). Raw credentials
 * are digested here and never kept.
 */
import { z } from "zod";
import { uuid } from "./pydantic/uuid.ts";

/** `X-Tenant-Id`: a UUID as pydantic reads one, in its canonical spelling (it names the workspace object). */
const TenantId = uuid();

/** What a request's headers say about its workspace. */
export type WorkspaceCredential =
  | { readonly kind: "none" }
  | { readonly kind: "invalid-tenant"; readonly sent: string; readonly issues: z.core.$ZodIssue[] }
  | { readonly kind: "workspace"; readonly workspaceId: string };

/**
 * One of `X-Api-Key`, `X-Tenant-Id` or `Authorization: Bearer <token>`, as the control plane takes
 * them: the workspace is `X-Tenant-Id` when sent (a UUID), otherwise a default workspace derived
 * from the key or token.
 */
export async function workspaceCredential(headers: Headers): Promise<WorkspaceCredential> {
  const tenant = headers.get("x-tenant-id")?.trim();
  const apiKey = headers.get("x-api-key")?.trim();
  const bearer = /^Bearer\s+(\S.*)$/i.exec(headers.get("authorization") ?? "")?.[1]?.trim();
  if (tenant) {
    const parsed = TenantId.safeParse(tenant);
    return parsed.success ? { kind: "workspace", workspaceId: parsed.data } : { kind: "invalid-tenant", sent: tenant, issues: parsed.error.issues };
  }
  if (apiKey) return { kind: "workspace", workspaceId: await defaultWorkspaceId(`api-key:${apiKey}`) };
  if (bearer) return { kind: "workspace", workspaceId: await defaultWorkspaceId(`bearer:${bearer}`) };
  return { kind: "none" };
}

/** A stable UUID (version nibble 8, "custom") for the credential's default workspace: made from its SHA-256. */
export async function defaultWorkspaceId(credential: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(credential)));
  digest[6] = (digest[6]! & 0x0f) | 0x80;
  digest[8] = (digest[8]! & 0x3f) | 0x80;
  const hex = [...digest.slice(0, 16)].map((b) => b.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}
