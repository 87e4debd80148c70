import { createMiddleware } from "hono/factory";
import { z } from "zod";
import { detail, unprocessable } from "../shared/answer.ts";
import type { ControlPlaneBindings } from "./env.ts";
import { toValidationErrors } from "../../src/http/fastapi-errors.ts";
import { uuid } from "../shared/pydantic/uuid.ts";

export interface ControlPlaneEnv {
  Bindings: ControlPlaneBindings;
  Variables: {
    /** The workspace every read and write of this request is scoped to. */
    workspaceId: string;
  };
}

/** `X-Tenant-Id`: a UUID as pydantic reads one, in its canonical spelling (it names the workspace object). */
const TenantId = uuid();

/**
 * Authentication as the control plane does it: one of `X-Api-Key`, `X-Tenant-Id` or
 * `Authorization: Bearer <token>`; none is 401. The workspace is `X-Tenant-Id` when sent (a UUID),
 * otherwise a default workspace derived from the key or token: a UUID made from its SHA-256, so
 * the raw credential is never stored.
 */
export function authenticate() {
  return createMiddleware<ControlPlaneEnv>(async (c, next) => {
    const tenant = c.req.header("x-tenant-id")?.trim();
    const apiKey = c.req.header("x-api-key")?.trim();
    const bearer = /^Bearer\s+(\S.*)$/i.exec(c.req.header("authorization") ?? "")?.[1]?.trim();
    if (!tenant && !apiKey && !bearer) {
      return detail(c, 401, "Not authenticated: send an X-Api-Key header, an X-Tenant-Id header or an Authorization: Bearer token.");
    }
    if (tenant) {
      const parsed = TenantId.safeParse(tenant);
      if (!parsed.success) return unprocessable(c, toValidationErrors(parsed.error.issues, "header", tenant).map((e) => ({ ...e, loc: ["header", "x-tenant-id"] })));
      c.set("workspaceId", parsed.data);
    } else {
      c.set("workspaceId", await defaultWorkspaceId(apiKey ? `api-key:${apiKey}` : `bearer:${bearer}`));
    }
    await next();
  });
}

/** A stable UUID (version nibble 8, "custom") for the credential's default workspace. */
export async function defaultWorkspaceId(credential: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(credential)));
  digest[6] = (digest[6]! & 0x0f) | 0x80;
  digest[8] = (digest[8]! & 0x3f) | 0x80;
  const hex = [...digest.slice(0, 16)].map((b) => b.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}
