// POST /v2/deployments/{deployment_id}/revisions/{revision_id}/redeploy: a new revision of an
// earlier one's configuration, walking the statuses like any revision (contract-checked answers).
import { describe, expect, it } from "vitest";
import { create, githubDeployment, manualClock, revisionOf, STEP } from "./deployment-support.ts";
import { controlPlane, freshWorkspace } from "./support.ts";

const redeploy = (workspace: string, deploymentId: string, revisionId: string) =>
  controlPlane("POST", `/v2/deployments/${deploymentId}/revisions/${revisionId}/redeploy`, { workspace });

describe("POST /v2/deployments/{deployment_id}/revisions/{revision_id}/redeploy", () => {
  it("rolls back: a new latest revision with the old one's configuration and commit, deployed in its turn", async () => {
    const workspace = freshWorkspace();
    const clock = await manualClock(workspace);
    const created = await create(workspace, githubDeployment());
    const first = (await revisionOf(workspace, created.id, created.latest_revision_id)).body;
    clock.advance(6 * STEP);
    const patched = await controlPlane("PATCH", `/v2/deployments/${created.id}`, { workspace, body: { source_revision_config: { repo_ref: "release" } } });
    clock.advance(6 * STEP);
    expect((await controlPlane("GET", `/v2/deployments/${created.id}`, { workspace })).body.active_revision_id).toBe(patched.body.latest_revision_id);

    clock.advance(STEP);
    const res = await redeploy(workspace, created.id, first.id);
    expect(res.status).toBe(200);
    const newId = res.body.latest_revision_id;
    expect(newId).not.toBe(first.id);
    expect(res.body.source_revision_config).toEqual(first.source_revision_config);
    expect(res.body.updated_at).toBe(new Date(clock.now).toISOString());
    // The revision it replaces keeps serving until the redeployed one is deployed.
    expect(res.body.active_revision_id).toBe(patched.body.latest_revision_id);
    const seen: string[] = [];
    for (let step = 0; step < 7; step++) {
      seen.push((await revisionOf(workspace, created.id, newId)).body.status);
      clock.advance(STEP);
    }
    expect(seen).toEqual(["CREATING", "QUEUED", "AWAITING_BUILD", "BUILDING", "AWAITING_DEPLOY", "DEPLOYING", "DEPLOYED"]);
    expect((await controlPlane("GET", `/v2/deployments/${created.id}`, { workspace })).body.active_revision_id).toBe(newId);
    const revisions = (await controlPlane("GET", `/v2/deployments/${created.id}/revisions`, { workspace })).body.resources;
    expect(revisions.map((r: { id: string }) => r.id)).toEqual([newId, patched.body.latest_revision_id, first.id]);
  });

  it("interrupts a revision still in progress, and a failing configuration fails again", async () => {
    const workspace = freshWorkspace();
    const clock = await manualClock(workspace);
    const created = await create(
      workspace,
      githubDeployment(undefined, { source_revision_config: { repo_ref: "fail-build", langgraph_config_path: "langgraph.json" } }),
    );
    clock.advance(STEP);
    const res = await redeploy(workspace, created.id, created.latest_revision_id);
    expect(res.status).toBe(200);
    expect((await revisionOf(workspace, created.id, created.latest_revision_id)).body.status).toBe("INTERRUPTED");
    clock.advance(10 * STEP);
    expect((await revisionOf(workspace, created.id, res.body.latest_revision_id)).body.status).toBe("BUILD_FAILED");
    expect((await controlPlane("GET", `/v2/deployments/${created.id}`, { workspace })).body).toMatchObject({
      active_revision_id: null,
      status: "AWAITING_DATABASE",
    });
  });

  it("answers 404 for an unknown deployment, a revision of another deployment, and 422 for bad ids", async () => {
    const workspace = freshWorkspace();
    const a = await create(workspace);
    const b = await create(workspace);
    const unknown = crypto.randomUUID();
    expect(await redeploy(workspace, unknown, a.latest_revision_id)).toMatchObject({ status: 404, body: { detail: `Deployment ID ${unknown} not found.` } });
    expect(await redeploy(workspace, a.id, b.latest_revision_id)).toMatchObject({
      status: 404,
      body: { detail: `Revision ID ${b.latest_revision_id} not found.` },
    });
    expect(await redeploy(freshWorkspace(), a.id, a.latest_revision_id)).toMatchObject({ status: 404 });
    const bad = await redeploy(workspace, a.id, "nope");
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0]).toMatchObject({ type: "uuid_parsing", loc: ["path", "revision_id"] });
  });
});
