import { describe, expect, it } from "vitest";
import { controlPlane, freshWorkspace } from "./support.ts";
import { controlPlaneEnv } from "../support/emulator-env.ts";

describe("control-plane emulator: auth and plumbing", () => {
  it("answers 401 {detail} without credentials", async () => {
    const res = await controlPlane("GET", "/v2/listeners");
    expect(res.status).toBe(401);
    expect(typeof res.body.detail).toBe("string");
  });

  it("answers 422 for a tenant id that is not a UUID", async () => {
    const res = await controlPlane("GET", "/v2/listeners", { workspace: "not-a-uuid" });
    expect(res.status).toBe(422);
    expect(res.body.detail[0]).toMatchObject({ loc: ["header", "x-tenant-id"], type: "uuid_parsing" });
  });

  it("reaches per-workspace stores over RPC with pipelining", async () => {
    const stub = controlPlaneEnv.CONTROL_PLANE_WORKSPACES.getByName(freshWorkspace());
    expect(await stub.listeners().ping()).toMatch(/^listeners of/);
    expect((await stub.settings().get("00000000-0000-4000-8000-00000000000b")).plan).toBe("plus");
  });

  it("reads bodies as FastAPI does: JSON without a content type, text otherwise, empty is missing", async () => {
    const workspace = freshWorkspace();
    const template = { name: "no-content-type", image: "python:3.12-slim" };
    const noType = await controlPlane("POST", "/v2/sandboxes/templates", { workspace, rawBody: JSON.stringify(template), headers: { "content-type": "" } });
    expect(noType.status).toBe(201);
    const text = await controlPlane("POST", "/v2/sandboxes/templates", {
      workspace,
      rawBody: JSON.stringify(template),
      headers: { "content-type": "text/plain" },
    });
    expect(text.status).toBe(422);
    expect(text.body.detail[0]).toMatchObject({ loc: ["body"], type: "dict_type" });
    const empty = await controlPlane("POST", "/v2/sandboxes/templates", { workspace, rawBody: "" });
    expect(empty.status).toBe(422);
    expect(empty.body.detail[0]).toMatchObject({ loc: ["body"], type: "missing" });
    const malformed = await controlPlane("POST", "/v2/sandboxes/templates", { workspace, rawBody: "{nope" });
    expect(malformed.body.detail[0]).toMatchObject({ loc: ["body", 0], type: "json_invalid" });
  });
});
