// The control-plane emulator Worker through the gateway (its service binding; every /v2 path is
// the control plane's locally): the gateway's headers on the emulator's answers, and its refusals
// before the emulator sees anything. The emulator's own behaviour: test/workers/control-plane/.
import { describe, expect, it } from "vitest";
import { gateway } from "../support/requests.ts";

const rand = () => Math.floor(Math.random() * 250) + 1;
const caller = () => ({ "cf-connecting-ip": `10.${rand()}.${rand()}.${rand()}`, "x-api-key": `cp-${crypto.randomUUID()}` });

describe("the control plane through the gateway", () => {
  it("a deployment is created and listed, each answer the emulator's with the gateway's RateLimit headers", async () => {
    const headers = { ...caller(), "x-tenant-id": crypto.randomUUID(), "content-type": "application/json" };
    const created = await gateway("/v2/deployments", {
      method: "POST",
      headers,
      body: JSON.stringify({
        name: "through-gateway",
        source: "github",
        source_config: { integration_id: crypto.randomUUID(), repo_url: "https://github.com/acme/agent", deployment_type: "dev", build_on_push: false },
        source_revision_config: { repo_ref: "main", langgraph_config_path: "langgraph.json" },
        secrets: [],
      }),
    });
    expect(created.status).toBe(201);
    expect(created.headers.get("ratelimit-policy")).toMatch(/q=\d+;w=\d+/);
    const { id } = (await created.json()) as { id: string };

    const listed = await gateway("/v2/deployments", { headers });
    expect(listed.status).toBe(200);
    expect(listed.headers.get("ratelimit")).toMatch(/r=\d+;t=\d+/);
    const page = (await listed.json()) as { resources: Array<{ id: string }> };
    expect(page.resources.map((d) => d.id)).toEqual([id]);
  });

  it("without credentials the emulator's own 401, through the gateway", async () => {
    const res = await gateway("/v2/listeners", { headers: { "cf-connecting-ip": caller()["cf-connecting-ip"]! } });
    expect(res.status).toBe(401);
    expect(await res.json()).toHaveProperty("detail");
  });
});
