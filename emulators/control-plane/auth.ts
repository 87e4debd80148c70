import { createMiddleware } from "hono/factory";
import { detail, unprocessable } from "../shared/answer.ts";
import type { ControlPlaneBindings } from "./env.ts";
import { toValidationErrors } from "../../src/http/fastapi-errors.ts";
import { defaultWorkspaceId, NOT_AUTHENTICATED, NOT_YOUR_WORKSPACE, workspaceCredential } from "../shared/workspace-credential.ts";

export interface ControlPlaneEnv {
  Bindings: ControlPlaneBindings;
  Variables: {
    /** The workspace every read and write of this request is scoped to. */
    workspaceId: string;
  };
}

/**
 * Authentication as the control plane does it: the credential is `X-Api-Key` (or
 * `Authorization: Bearer <token>`); none is 401, and so is an `X-Tenant-Id` alone. The workspace is
 * the key's own (a UUID derived from a digest of it, so the raw credential is never stored), or
 * the one `X-Tenant-Id` chooses, which the key must be let into: a workspace other than its own is
 * the first key's to choose it, and 403 `{detail}` to every other (workspace-settings.ts, admit).
 * The reading is shared with the deployments' agent servers (../shared/workspace-credential.ts).
 */
export function authenticate() {
  return createMiddleware<ControlPlaneEnv>(async (c, next) => {
    const credential = await workspaceCredential(c.req.raw.headers);
    if (credential.kind === "none") return detail(c, 401, NOT_AUTHENTICATED);
    if (credential.kind === "invalid-tenant") {
      return unprocessable(
        c,
        toValidationErrors(credential.issues, "header", credential.sent).map((e) => ({ ...e, loc: ["header", "x-tenant-id"] })),
      );
    }
    c.set("workspaceId", credential.workspaceId);
    const admitted = await c.env.CONTROL_PLANE_WORKSPACES.getByName(credential.workspaceId).settings().admit(credential.keyWorkspace, !credential.chosen);
    if (!admitted) return detail(c, 403, NOT_YOUR_WORKSPACE);
    await next();
  });
}

export { defaultWorkspaceId };
