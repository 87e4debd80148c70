import { Hono, type Context } from "hono";
import type { ControlPlaneEnv } from "../auth.ts";
import { detail, validate } from "../../shared/http.ts";
import type { StoreResult } from "../store-result.ts";
import { workspaceOf } from "../workspace.ts";
import {
  DeploymentCreateRequest,
  DeploymentDeleteQuery,
  DeploymentListQuery,
  DeploymentPatchRequest,
  DeploymentPath,
  RevisionListQuery,
  RevisionPath,
} from "./schema.ts";

/**
 * Routes under /v2/deployments: deployments (create, list, get, patch, delete) and their
 * revisions (list, get). Auth and malformed JSON were handled by the app; each handler validates
 * its input, then makes one pipelined RPC call to the workspace's DeploymentStore.
 */
export const deploymentRoutes = new Hono<ControlPlaneEnv>()
  .post("/", validate("json", DeploymentCreateRequest), async (c) => {
    using store = deploymentsOf(c);
    return answer(c, await store.create(c.var.workspaceId, c.req.valid("json")), 201);
  })
  .get("/", validate("query", DeploymentListQuery), async (c) => {
    using store = deploymentsOf(c);
    const { items, offset } = await store.list(c.req.valid("query"));
    return c.json({ resources: items, offset });
  })
  .get("/:deployment_id", validate("param", DeploymentPath), async (c) => {
    using store = deploymentsOf(c);
    return answer(c, await store.get(c.req.valid("param").deployment_id));
  })
  .patch("/:deployment_id", validate("param", DeploymentPath), validate("json", DeploymentPatchRequest), async (c) => {
    using store = deploymentsOf(c);
    return answer(c, await store.patch(c.req.valid("param").deployment_id, c.req.valid("json")));
  })
  .delete("/:deployment_id", validate("param", DeploymentPath), validate("query", DeploymentDeleteQuery), async (c) => {
    using store = deploymentsOf(c);
    const result = await store.delete(c.req.valid("param").deployment_id);
    return result.ok ? c.body(null, 204) : detail(c, result.status, result.detail);
  })
  .get("/:deployment_id/revisions", validate("param", DeploymentPath), validate("query", RevisionListQuery), async (c) => {
    using store = deploymentsOf(c);
    const result = await store.listRevisions(c.req.valid("param").deployment_id, c.req.valid("query"));
    if (!result.ok) return detail(c, result.status, result.detail);
    return c.json({ resources: result.value.items, offset: result.value.offset });
  })
  .get("/:deployment_id/revisions/:revision_id", validate("param", RevisionPath), async (c) => {
    using store = deploymentsOf(c);
    const { deployment_id, revision_id } = c.req.valid("param");
    return answer(c, await store.getRevision(deployment_id, revision_id));
  });

/**
 * The workspace's DeploymentStore, pipelined (the call that uses it is the one round trip).
 * Bound with `using`: the stub to the store is disposed when the handler ends, not left to GC.
 */
function deploymentsOf(c: Context<ControlPlaneEnv>) {
  return workspaceOf(c).deployments();
}

/** A store result as FastAPI answers it: the value, or `{"detail": "..."}` with the refusal's status. */
function answer<T>(c: Context<ControlPlaneEnv>, result: StoreResult<T>, status: 200 | 201 = 200): Response {
  return result.ok ? c.json(result.value as object, status) : detail(c, result.status, result.detail);
}
