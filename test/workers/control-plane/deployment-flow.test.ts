import { evictDurableObject, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { PATHS } from "../../../emulators/control-plane/deployments/lifecycle.ts";
import { controlPlane, freshWorkspace } from "./support.ts";
import { githubDeployment, manualClock, scheduledAlarm, STEP, storedRevision, workspaceObject } from "./deployment-support.ts";

/**
 * The documented flow (spec, "Typical deployment flow"): revisions move on the workspace's own
 * alarm, one status per CONTROL_PLANE_REVISION_STEP_MS. The test drives that time: its clock
 * (deployment-support.ts) runs a day ahead, so no alarm fires on its own, and each step is the
 * clock moved one step on and the alarm run (`runDurableObjectAlarm`). Every status is then seen,
 * in order, whatever the machine's speed.
 */

/** Lets one status step pass: the clock moves on and the workspace's alarm rings. */
async function step(workspace: string, clock: { advance(ms: number): void }): Promise<boolean> {
  clock.advance(STEP);
  return runDurableObjectAlarm(workspaceObject(workspace));
}

/** Steps a revision to its final status, reading it through the API after each step; answers the statuses read, in order. */
async function walk(workspace: string, clock: { advance(ms: number): void }, deploymentId: string, revisionId: string): Promise<string[]> {
  const read = async () => {
    const res = await controlPlane("GET", `/v2/deployments/${deploymentId}/revisions/${revisionId}`, { workspace });
    expect(res.status).toBe(200);
    return res.body.status as string;
  };
  const seen = [await read()];
  while (!FINAL.includes(seen.at(-1)!)) {
    expect(await step(workspace, clock)).toBe(true);
    seen.push(await read());
  }
  return seen;
}

const FINAL = ["DEPLOYED", "BUILD_FAILED", "DEPLOY_FAILED", "CREATE_FAILED", "INTERRUPTED"];

describe("deployment flow on the workspace's alarms", () => {
  it("creates, reads, steps to DEPLOYED, patches, steps the new revision, deletes", async () => {
    const workspace = freshWorkspace();
    const clock = await manualClock(workspace);
    const created = await controlPlane("POST", "/v2/deployments", { workspace, body: githubDeployment("flow") });
    expect(created.status).toBe(201);
    const { id, latest_revision_id: first } = created.body;

    const read = await controlPlane("GET", `/v2/deployments/${id}`, { workspace });
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ id, latest_revision_id: first, active_revision_id: null });

    expect(await walk(workspace, clock, id, first)).toEqual(PATHS.deployed);
    expect((await controlPlane("GET", `/v2/deployments/${id}`, { workspace })).body).toMatchObject({ status: "READY", active_revision_id: first });

    const patched = await controlPlane("PATCH", `/v2/deployments/${id}`, { workspace, body: { source_revision_config: { repo_ref: "release" } } });
    expect(patched.status).toBe(200);
    const second = patched.body.latest_revision_id;
    expect(second).not.toBe(first);
    expect(patched.body.active_revision_id).toBe(first);

    expect(await walk(workspace, clock, id, second)).toEqual(PATHS.deployed);
    expect((await controlPlane("GET", `/v2/deployments/${id}`, { workspace })).body).toMatchObject({ active_revision_id: second, latest_revision_id: second });

    expect((await controlPlane("DELETE", `/v2/deployments/${id}`, { workspace })).status).toBe(204);
    expect((await controlPlane("GET", `/v2/deployments/${id}`, { workspace })).status).toBe(404);
    // Nothing is left to move on: the alarm is gone.
    expect(await runDurableObjectAlarm(workspaceObject(workspace))).toBe(false);
  });

  it("ends a fail-build revision in BUILD_FAILED on its alarms alone, and the active revision stays", async () => {
    const workspace = freshWorkspace();
    const clock = await manualClock(workspace);
    const created = (await controlPlane("POST", "/v2/deployments", { workspace, body: githubDeployment("flaky") })).body;
    expect(await walk(workspace, clock, created.id, created.latest_revision_id)).toEqual(PATHS.deployed);

    const patched = (await controlPlane("PATCH", `/v2/deployments/${created.id}`, { workspace, body: { source_revision_config: { repo_ref: "fail-build" } } }))
      .body;
    // No API reads meanwhile, only the stored row: the object's own alarms must persist the outcome.
    const stored = [(await storedRevision(workspace, patched.latest_revision_id))!.status];
    while (!FINAL.includes(stored.at(-1)!)) {
      expect(await step(workspace, clock)).toBe(true);
      stored.push((await storedRevision(workspace, patched.latest_revision_id))!.status);
    }
    expect(stored).toEqual(PATHS.build_failed);

    const final = (await controlPlane("GET", `/v2/deployments/${created.id}`, { workspace })).body;
    expect(final).toMatchObject({ status: "READY", latest_revision_id: patched.latest_revision_id, active_revision_id: created.latest_revision_id });
  });
});

describe("POST /v2/_emulator/workspaces/{workspace_id}/clock", () => {
  const advance = (workspace: string, body: unknown) => controlPlane("POST", `/v2/_emulator/workspaces/${workspace}/clock`, { workspace, body });

  it("moves the workspace's revisions on by the time given, before it answers, on the machine's clock otherwise", async () => {
    const workspace = freshWorkspace();
    const created = (await controlPlane("POST", "/v2/deployments", { workspace, body: githubDeployment("switched") })).body;
    const before = Date.now();
    const moved = await advance(workspace, { advance_ms: PATHS.deployed.length * STEP });
    expect(moved.status).toBe(200);
    expect(Date.parse(moved.body.now)).toBeGreaterThanOrEqual(before + PATHS.deployed.length * STEP);
    expect((await storedRevision(workspace, created.latest_revision_id))!.status).toBe("DEPLOYED");
    expect((await controlPlane("GET", `/v2/deployments/${created.id}`, { workspace })).body).toMatchObject({
      status: "READY",
      active_revision_id: created.latest_revision_id,
    });
    expect(await scheduledAlarm(workspace)).toBeNull();
  });

  it("keeps the workspace's clock ahead across a restart of its object, and sets alarms on the machine's time", async () => {
    const workspace = freshWorkspace();
    const DAY = 86_400_000;
    const before = Date.now();
    expect((await advance(workspace, { advance_ms: DAY })).status).toBe(200);
    const created = (await controlPlane("POST", "/v2/deployments", { workspace, body: githubDeployment("ahead") })).body;
    // Created a day ahead; its next status is due a step after that, and the alarm that brings it
    // is set on the machine's time. Both read in one step of the object (its alarm may ring meanwhile).
    const { stored, alarm } = await runInDurableObject(workspaceObject(workspace), async (_, state) => {
      const row = state.storage.sql
        .exec<{ updated_ms: number; next_at: number }>("SELECT updated_ms, next_at FROM deployment_revisions WHERE id = ?", created.latest_revision_id)
        .one();
      return { stored: row, alarm: await state.storage.getAlarm() };
    });
    expect(stored.updated_ms).toBeGreaterThanOrEqual(before + DAY);
    expect(alarm).toBe(stored.next_at - DAY);
    await evictDurableObject(workspaceObject(workspace));
    expect(Date.parse((await advance(workspace, { advance_ms: 0 })).body.now)).toBeGreaterThanOrEqual(before + DAY);
  });

  it("answers 422 for a time that is not a whole number of milliseconds from 0 to a year", async () => {
    const workspace = freshWorkspace();
    for (const advance_ms of [-1, 1.5, "60000", 367 * 86_400_000]) {
      const res = await advance(workspace, { advance_ms });
      expect(res.status, String(advance_ms)).toBe(422);
      expect(res.body.detail[0].loc).toEqual(["body", "advance_ms"]);
    }
    expect((await advance(workspace, {})).body.detail[0]).toMatchObject({ type: "missing", loc: ["body", "advance_ms"] });
  });
});
