// DELETE /v2/deployments?deployment_ids=...: many deployments at once, with partial success
// (every answer contract-checked, support.ts).
import { describe, expect, it } from "vitest";
import { create, dockerDeployment, githubDeployment, manualClock, scheduledAlarm } from "./deployment-support.ts";
import { controlPlane, freshWorkspace } from "./support.ts";

const ids = (...list: string[]) => list.map((id) => `deployment_ids=${id}`).join("&");
const listed = async (workspace: string) => (await controlPlane("GET", "/v2/deployments", { workspace })).body.resources.map((d: { id: string }) => d.id);

describe("DELETE /v2/deployments", () => {
  it("deletes every deployment named (200), their revisions with them, and leaves the others", async () => {
    const workspace = freshWorkspace();
    const [a, b, keep] = [await create(workspace), await create(workspace, dockerDeployment()), await create(workspace)];
    const res = await controlPlane("DELETE", `/v2/deployments?${ids(a.id, b.id.toUpperCase())}`, { workspace });
    expect(res).toMatchObject({ status: 200, body: { deleted: [a.id, b.id], failed: [] } });
    expect(await listed(workspace)).toEqual([keep.id]);
    expect((await controlPlane("GET", `/v2/deployments/${a.id}/revisions`, { workspace })).status).toBe(404);
  });

  it("answers 207 when some are not found, deleting the rest, and names each failure", async () => {
    const workspace = freshWorkspace();
    const a = await create(workspace);
    const missing = crypto.randomUUID();
    const res = await controlPlane("DELETE", `/v2/deployments?${ids(a.id, missing, a.id)}`, { workspace });
    expect(res.status).toBe(207);
    expect(res.body).toEqual({ deleted: [a.id], failed: [{ deployment_id: missing, detail: `Deployment ID ${missing} not found.` }] });
    expect(await listed(workspace)).toEqual([]);
  });

  it("answers 404 when none is found, and deletes nothing", async () => {
    const workspace = freshWorkspace();
    const other = freshWorkspace();
    const theirs = await create(other);
    const res = await controlPlane("DELETE", `/v2/deployments?${ids(theirs.id)}`, { workspace });
    expect(res).toMatchObject({ status: 404, body: { detail: `Deployment ID ${theirs.id} not found.` } });
    expect(await listed(other)).toEqual([theirs.id]);
  });

  it("moves the alarm off the deleted deployments' pending revisions", async () => {
    const workspace = freshWorkspace();
    await manualClock(workspace);
    const a = await create(workspace, githubDeployment());
    expect(await scheduledAlarm(workspace)).not.toBeNull();
    await controlPlane("DELETE", `/v2/deployments?${ids(a.id)}`, { workspace });
    expect(await scheduledAlarm(workspace)).toBeNull();
  });

  it.each([
    ["no deployment_ids", "", { type: "missing", loc: ["query", "deployment_ids"] }],
    ["an id that is not a UUID", ids(crypto.randomUUID(), "nope"), { type: "uuid_parsing", loc: ["query", "deployment_ids", 1] }],
    [
      "comma-joined ids (one item, as FastAPI reads a list)",
      `deployment_ids=${crypto.randomUUID()},${crypto.randomUUID()}`,
      { type: "uuid_parsing", loc: ["query", "deployment_ids", 0] },
    ],
    [
      "101 ids",
      ids(...Array.from({ length: 101 }, () => crypto.randomUUID())),
      { type: "too_long", loc: ["query", "deployment_ids"], ctx: { max_length: 100 } },
    ],
  ])("answers 422 for %s", async (_name, query, error) => {
    const res = await controlPlane("DELETE", `/v2/deployments${query ? `?${query}` : ""}`, { workspace: freshWorkspace() });
    expect(res.status).toBe(422);
    expect(res.body.detail[0]).toMatchObject(error);
  });

  it("takes 100 ids", async () => {
    const workspace = freshWorkspace();
    const a = await create(workspace);
    const res = await controlPlane("DELETE", `/v2/deployments?${ids(a.id, ...Array.from({ length: 99 }, () => crypto.randomUUID()))}`, { workspace });
    expect(res.status).toBe(207);
    expect(res.body.deleted).toEqual([a.id]);
    expect(res.body.failed).toHaveLength(99);
  });
});
