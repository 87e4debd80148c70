import { runInDurableObject } from "cloudflare:test";
import { describe, it, type ExpectStatic } from "vitest";
import { GITHUB_INTEGRATION } from "../../../emulators/control-plane/integrations/seed.ts";
import { controlPlane, freshWorkspace } from "./support.ts";
import { controlPlaneEnv } from "../support/emulator-env.ts";

/**
 * The documented flow (spec, "Typical deployment flow"), through the gateway, on real time:
 * revisions move on their own alarms at CONTROL_PLANE_REVISION_STEP_MS (500 ms, so DEPLOYED
 * after 3 s on an idle machine). Nothing here bounds how long that takes (a busy machine fires
 * alarms late): polls go on until the status is final, and the test timeout is the only limit.
 * The two tests run concurrently to keep the wall time near one pipeline pair.
 */

const STEP = Number(controlPlaneEnv.CONTROL_PLANE_REVISION_STEP_MS);
const PIPELINE = ["CREATING", "QUEUED", "AWAITING_BUILD", "BUILDING", "AWAITING_DEPLOY", "DEPLOYING", "DEPLOYED"];
const FINAL = ["DEPLOYED", "BUILD_FAILED", "DEPLOY_FAILED", "CREATE_FAILED", "INTERRUPTED"];
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls a revision until its status is final; answers the distinct statuses seen, in order. */
async function pollRevision(expect: ExpectStatic, workspace: string, deploymentId: string, revisionId: string): Promise<string[]> {
  const seen: string[] = [];
  for (;;) {
    const res = await controlPlane("GET", `/v2/deployments/${deploymentId}/revisions/${revisionId}`, { workspace });
    expect(res.status).toBe(200);
    if (seen.at(-1) !== res.body.status) seen.push(res.body.status);
    if (FINAL.includes(res.body.status)) return seen;
    await sleep(100);
  }
}

/** A revision's status as stored, read in the object without going through the API. */
async function storedStatus(workspace: string, revisionId: string): Promise<string> {
  return runInDurableObject(controlPlaneEnv.CONTROL_PLANE_WORKSPACES.getByName(workspace), (_instance, state) =>
    String(state.storage.sql.exec("SELECT status FROM deployment_revisions WHERE id = ?", revisionId).one().status),
  );
}

/** Statuses seen while polling must follow the pipeline's order (polling may skip some). */
function expectInPipelineOrder(expect: ExpectStatic, seen: string[], last: string) {
  expect(seen.at(-1)).toBe(last);
  const positions = seen.slice(0, -1).map((s) => PIPELINE.indexOf(s));
  expect(positions.every((p) => p >= 0)).toBe(true);
  expect(positions).toEqual([...positions].sort((a, b) => a - b));
}

const deployment = (name: string) => ({
  name,
  source: "github",
  source_config: { integration_id: GITHUB_INTEGRATION.id, repo_url: "https://github.com/acme/agent", deployment_type: "dev" },
  source_revision_config: { repo_ref: "main", langgraph_config_path: "langgraph.json" },
  secrets: [{ name: "OPENAI_API_KEY", value: "sk-flow" }],
});

describe.concurrent("deployment flow on real time", () => {
  it("creates, reads, polls to DEPLOYED, patches, polls the new revision, deletes", async ({ expect }) => {
    const workspace = freshWorkspace();
    const created = await controlPlane("POST", "/v2/deployments", { workspace, body: deployment("flow") });
    expect(created.status).toBe(201);
    const { id, latest_revision_id: first } = created.body;

    const read = await controlPlane("GET", `/v2/deployments/${id}`, { workspace });
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ id, latest_revision_id: first, active_revision_id: null });

    expectInPipelineOrder(expect, await pollRevision(expect, workspace, id, first), "DEPLOYED");
    expect((await controlPlane("GET", `/v2/deployments/${id}`, { workspace })).body).toMatchObject({ status: "READY", active_revision_id: first });

    const patched = await controlPlane("PATCH", `/v2/deployments/${id}`, { workspace, body: { source_revision_config: { repo_ref: "release" } } });
    expect(patched.status).toBe(200);
    const second = patched.body.latest_revision_id;
    expect(second).not.toBe(first);
    expect(patched.body.active_revision_id).toBe(first);

    expectInPipelineOrder(expect, await pollRevision(expect, workspace, id, second), "DEPLOYED");
    expect((await controlPlane("GET", `/v2/deployments/${id}`, { workspace })).body).toMatchObject({ active_revision_id: second, latest_revision_id: second });

    expect((await controlPlane("DELETE", `/v2/deployments/${id}`, { workspace })).status).toBe(204);
    expect((await controlPlane("GET", `/v2/deployments/${id}`, { workspace })).status).toBe(404);
  });

  it("ends a fail-build revision in BUILD_FAILED on its alarms alone, and the active revision stays", async ({ expect }) => {
    const workspace = freshWorkspace();
    const created = (await controlPlane("POST", "/v2/deployments", { workspace, body: deployment("flaky") })).body;
    expectInPipelineOrder(expect, await pollRevision(expect, workspace, created.id, created.latest_revision_id), "DEPLOYED");

    const patched = (await controlPlane("PATCH", `/v2/deployments/${created.id}`, { workspace, body: { source_revision_config: { repo_ref: "fail-build" } } })).body;
    // No API reads meanwhile, only the stored row: the object's own alarms must persist the outcome.
    let stored = await storedStatus(workspace, patched.latest_revision_id);
    while (!FINAL.includes(stored)) {
      await sleep(STEP);
      stored = await storedStatus(workspace, patched.latest_revision_id);
    }
    expect(stored).toBe("BUILD_FAILED");

    const final = (await controlPlane("GET", `/v2/deployments/${created.id}`, { workspace })).body;
    expect(final).toMatchObject({ status: "READY", latest_revision_id: patched.latest_revision_id, active_revision_id: created.latest_revision_id });
  });
});
