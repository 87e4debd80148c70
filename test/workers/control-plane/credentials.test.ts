// The control plane's credential is the key (X-Api-Key or a bearer token); X-Tenant-Id only
// chooses among the workspaces that key may use (issue 32, finding 3). Before, X-Tenant-Id won
// over the key and opened its workspace on its own, so a fixed X-Tenant-Id with a new key each
// time reached one workspace past any per-key limit in front of it.
import { describe, expect, it } from "vitest";
import { defaultWorkspaceId } from "../../../emulators/shared/workspace-credential.ts";
import { controlPlane, freshWorkspace } from "./support.ts";

const listeners = (headers: Record<string, string>) => controlPlane("GET", "/v2/listeners", { headers });
const template = (headers: Record<string, string>) =>
  controlPlane("POST", "/v2/sandboxes/templates", { headers, body: { name: `t-${crypto.randomUUID()}`, image: "python:3.12-slim" } });

describe("who may use a workspace", () => {
  it("a workspace id alone is 401, whatever workspace it names", async () => {
    const workspace = freshWorkspace();
    expect((await template({ "x-api-key": "owner-" + workspace, "x-tenant-id": workspace })).status).toBe(201);
    const res = await listeners({ "x-tenant-id": workspace });
    expect(res).toMatchObject({ status: 401, body: { detail: expect.stringContaining("X-Api-Key") } });
  });

  it("the first key to choose a workspace is the one it admits: a fixed X-Tenant-Id with a new key each time reaches nothing", async () => {
    const workspace = freshWorkspace();
    const owner = `owner-${crypto.randomUUID()}`;
    const made = await template({ "x-api-key": owner, "x-tenant-id": workspace });
    expect(made.status).toBe(201);
    for (let i = 0; i < 5; i++) {
      const res = await template({ "x-api-key": `fresh-${i}-${crypto.randomUUID()}`, "x-tenant-id": workspace });
      expect(res).toEqual(expect.objectContaining({ status: 403, body: { detail: "The X-Tenant-Id header names a workspace this API key may not use." } }));
      expect((await template({ authorization: `Bearer fresh-${i}-${crypto.randomUUID()}`, "x-tenant-id": workspace })).status).toBe(403);
    }
    // Nothing was written by the refused keys: the owner sees its one template.
    const listed = await controlPlane("GET", "/v2/sandboxes/templates", { headers: { "x-api-key": owner, "x-tenant-id": workspace } });
    expect(listed.status).toBe(200);
    expect(JSON.stringify(listed.body).match(/"t-[0-9a-f-]{36}"/g)).toEqual([`"${made.body.name}"`]);
  });

  it("a key always reaches its own workspace, by default or by naming it, and takes it back from a key that chose it first", async () => {
    const key = `own-${crypto.randomUUID()}`;
    const own = await defaultWorkspaceId(`api-key:${key}`);
    // Another key chose it before its owner ever came.
    expect((await listeners({ "x-api-key": `early-${crypto.randomUUID()}`, "x-tenant-id": own })).status).toBe(200);
    expect((await listeners({ "x-api-key": key, "x-tenant-id": own.toUpperCase() })).status).toBe(200);
    expect((await listeners({ "x-api-key": key })).status).toBe(200);
    expect((await listeners({ "x-api-key": `late-${crypto.randomUUID()}`, "x-tenant-id": own })).status).toBe(403);
  });

  it("a bearer token is a key as X-Api-Key is (its own workspace, and the workspaces it chose first)", async () => {
    const token = `token-${crypto.randomUUID()}`;
    const workspace = freshWorkspace();
    expect((await listeners({ authorization: `Bearer ${token}`, "x-tenant-id": workspace })).status).toBe(200);
    expect((await listeners({ authorization: `Bearer ${token}`, "x-tenant-id": workspace })).status).toBe(200);
    expect((await listeners({ "x-api-key": token, "x-tenant-id": workspace })).status).toBe(403);
    expect((await listeners({ authorization: `Bearer ${token}` })).status).toBe(200);
  });
});
