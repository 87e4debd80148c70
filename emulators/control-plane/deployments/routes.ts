import { Hono } from "hono";
import type { ControlPlaneEnv } from "../auth.ts";
import { answer } from "../../shared/answer.ts";
import { validate } from "../../shared/validate.ts";
import { revisionStepMs } from "../settings.ts";
import { deploymentsOf } from "../workspace.ts";
import { agentServerUrlTemplate } from "./agent-server-url.ts";
import {
  BulkDeleteQuery,
  DeploymentCreateRequest,
  DeploymentDeleteQuery,
  DeploymentListQuery,
  DeploymentPatchRequest,
  DeploymentPath,
  RevisionListQuery,
  RevisionPath,
} from "./schema.ts";

/**
 * Routes under /v2/deployments: deployments (create, list, get, patch, delete one or many) and
 * their revisions (list, get, redeploy). Auth and malformed JSON were handled by the app; each handler validates
 * its input, then makes one pipelined RPC call to the workspace's DeploymentStore.
 */
export const deploymentRoutes = new Hono<ControlPlaneEnv>()
  .post("/", validate("json", DeploymentCreateRequest), async (c) => {
    const stepMs = revisionStepMs(c.env);
    using store = deploymentsOf(c);
    const agentServerUrl = agentServerUrlTemplate(c);
    return answer(c, await store.create(c.var.workspaceId, c.req.valid("json"), stepMs, agentServerUrl), (deployment) => c.json(deployment, 201));
  })
  .get("/", validate("query", DeploymentListQuery), async (c) => {
    using store = deploymentsOf(c);
    const { items, offset } = await store.list(c.req.valid("query"));
    return c.json({ resources: items, offset });
  })
  .delete("/", validate("query", BulkDeleteQuery), async (c) => {
    using store = deploymentsOf(c);
    const result = await store.deleteMany(c.req.valid("query").deployment_ids);
    // 207 when some were not found (the operation's description), with what was and was not deleted.
    return answer(c, result, (deletion) => c.json(deletion, deletion.failed.length > 0 ? 207 : 200));
  })
  .get("/:deployment_id", validate("param", DeploymentPath), async (c) => {
    using store = deploymentsOf(c);
    return answer(c, await store.get(c.req.valid("param").deployment_id), (deployment) => c.json(deployment, 200));
  })
  .patch("/:deployment_id", validate("param", DeploymentPath), validate("json", DeploymentPatchRequest), async (c) => {
    const stepMs = revisionStepMs(c.env);
    using store = deploymentsOf(c);
    return answer(c, await store.patch(c.req.valid("param").deployment_id, c.req.valid("json"), stepMs), (deployment) => c.json(deployment, 200));
  })
  .delete("/:deployment_id", validate("param", DeploymentPath), validate("query", DeploymentDeleteQuery), async (c) => {
    using store = deploymentsOf(c);
    return answer(c, await store.delete(c.req.valid("param").deployment_id), () => c.body(null, 204));
  })
  .get("/:deployment_id/revisions", validate("param", DeploymentPath), validate("query", RevisionListQuery), async (c) => {
    using store = deploymentsOf(c);
    const result = await store.listRevisions(c.req.valid("param").deployment_id, c.req.valid("query"));
    return answer(c, result, (listed) => c.json({ resources: listed.items, offset: listed.offset }, 200));
  })
  .get("/:deployment_id/revisions/:revision_id", validate("param", RevisionPath), async (c) => {
    using store = deploymentsOf(c);
    const { deployment_id, revision_id } = c.req.valid("param");
    return answer(c, await store.getRevision(deployment_id, revision_id), (revision) => c.json(revision, 200));
  })
  .post("/:deployment_id/revisions/:revision_id/redeploy", validate("param", RevisionPath), async (c) => {
    const stepMs = revisionStepMs(c.env);
    using store = deploymentsOf(c);
    const { deployment_id, revision_id } = c.req.valid("param");
    return answer(c, await store.redeploy(deployment_id, revision_id, stepMs), (deployment) => c.json(deployment, 200));
  });
