import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { controlPlane, freshWorkspace } from "./support.ts";

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
    const stub = env.CONTROL_PLANE_WORKSPACES.getByName(freshWorkspace());
    expect(await stub.listeners().ping()).toMatch(/^listeners of/);
    expect((await stub.settings().get("00000000-0000-4000-8000-00000000000b")).plan).toBe("plus");
  });
});
