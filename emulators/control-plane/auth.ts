import { createMiddleware } from "hono/factory";
import { detail, unprocessable } from "../shared/answer.ts";
import type { ControlPlaneBindings } from "./env.ts";
import { toValidationErrors } from "../../src/http/fastapi-errors.ts";
import { defaultWorkspaceId, workspaceCredential } from "../shared/workspace-credential.ts";

export interface ControlPlaneEnv {
  Bindings: ControlPlaneBindings;
  Variables: {
    /** The workspace every read and write of this request is scoped to. */
    workspaceId: string;
  };
}

/**
 * Authentication as the control plane does it: one of `X-Api-Key`, `X-Tenant-Id` or
 * `Authorization: Bearer <token>`; none is 401. The workspace is `X-Tenant-Id` when sent (a UUID),
 * otherwise a default workspace derived from the key or token: a UUID made from its SHA-256, so
 * the raw credential is never stored. The reading is shared with the deployments' agent servers
 * (../shared/workspace-credential.ts).
 */
export function authenticate() {
  return createMiddleware<ControlPlaneEnv>(async (c, next) => {
    const credential = await workspaceCredential(c.req.raw.headers);
    if (credential.kind === "none") {
      return detail(c, 401, "Not authenticated: send an X-Api-Key header, an X-Tenant-Id header or an Authorization: Bearer token.");
    }
    if (credential.kind === "invalid-tenant") {
      return unprocessable(c, toValidationErrors(credential.issues, "header", credential.sent).map((e) => ({ ...e, loc: ["header", "x-tenant-id"] })));
    }
    c.set("workspaceId", credential.workspaceId);
    await next();
  });
}

export { defaultWorkspaceId };
