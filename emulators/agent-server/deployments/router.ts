import type { Hono } from "hono";
import { toValidationErrors } from "../../../src/http/fastapi-errors.ts";
import { canonicalUuid } from "../../../src/core/rules/uuid.ts";
import { drainBounded } from "../../shared/request-body.ts";
import { NOT_AUTHENTICATED, NOT_YOUR_WORKSPACE, workspaceCredential } from "../../shared/workspace-credential.ts";
import type { AgentServerBindings, AgentServerEnv } from "../env.ts";
import { registryOf } from "../state-access.ts";

/** Where each deployment's agent server is mounted in the emulator's own paths. */
export const DEPLOYMENTS_PREFIX = "/deployments";

/** `/deployments/<id>` and the rest of the path (the agent server's own), or undefined for any other path. */
export function deploymentPath(pathname: string): { segment: string; rest: string } | undefined {
  if (!pathname.startsWith(`${DEPLOYMENTS_PREFIX}/`)) return undefined;
  const tail = pathname.slice(DEPLOYMENTS_PREFIX.length + 1);
  const slash = tail.indexOf("/");
  return slash === -1 ? { segment: tail, rest: "/" } : { segment: tail.slice(0, slash), rest: tail.slice(slash) };
}

/**
 * The agent-server Worker's fetch: `/deployments/<deployment_id>/...` is that deployment's own
 * agent server (the same API on its own state object), every other path the shared one, as before.
 * A deployment's agent server takes only its workspace's callers (the credentials the control
 * plane reads, ../../shared/workspace-credential.ts): no key is 401 (an `X-Tenant-Id` alone too),
 * a malformed `X-Tenant-Id` 422, an `X-Tenant-Id` choosing a workspace whose key (as the control
 * plane provisioned it) is another 403,
 * and a deployment that has no agent server (never deployed, deleted) or belongs to another
 * workspace is 404, the same answer, as the control plane answers another workspace's deployment.
 * A refused request's body is read first, as the API reads every body (shared/request-body.ts).
 */
export function withDeployments(api: Hono<AgentServerEnv>) {
  return async (request: Request, env: AgentServerBindings, ctx: ExecutionContext): Promise<Response> => {
    const url = new URL(request.url);
    const path = deploymentPath(url.pathname);
    if (!path) return api.fetch(request, env, ctx);
    const refuse = async (status: number, detail: unknown) => {
      if (request.body) await drainBounded(request.body).catch(() => undefined);
      return Response.json({ detail }, { status });
    };
    const credential = await workspaceCredential(request.headers);
    if (credential.kind === "none") return refuse(401, NOT_AUTHENTICATED);
    if (credential.kind === "invalid-tenant") {
      return refuse(
        422,
        toValidationErrors(credential.issues, "header", credential.sent).map((e) => ({ ...e, loc: ["header", "x-tenant-id"] })),
      );
    }
    const registry = registryOf(env);
    if (credential.chosen && (await registry.keyWorkspace(credential.workspaceId)) !== credential.keyWorkspace) return refuse(403, NOT_YOUR_WORKSPACE);
    const deploymentId = canonicalUuid(decodeURIComponentSafe(path.segment));
    const owner = deploymentId === undefined ? null : await registry.owner(deploymentId);
    if (deploymentId === undefined || owner !== credential.workspaceId) return refuse(404, `Deployment ID ${path.segment} not found.`);
    const inner = new URL(url);
    inner.pathname = path.rest;
    return api.fetch(new Request(inner, request), { ...env, deploymentId }, ctx);
  };
}

function decodeURIComponentSafe(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
