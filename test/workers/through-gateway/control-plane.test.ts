// The control-plane emulator Worker through the controlPlaneViaGateway (its service binding; every /v2 and
// /v1/integrations path is the control plane's locally): the gateway's headers on the emulator's
// answers, and its refusals before the emulator sees anything, every answer held to the reference
// document (controlPlaneFetch). The emulator's own behaviour: test/workers/control-plane/.
import { describe, expect, it } from "vitest";
import { GITHUB_INTEGRATION } from "../../../emulators/control-plane/integrations/seed.ts";
import { CONTROL_PLANE_URL, controlPlaneFetch } from "../control-plane/support.ts";
import { randomClientIp } from "../../support/callers.ts";

const controlPlaneViaGateway = (path: string, init: RequestInit = {}) => controlPlaneFetch(`${CONTROL_PLANE_URL}${path}`, init);

const caller = () => ({ "cf-connecting-ip": randomClientIp(), "x-api-key": `cp-${crypto.randomUUID()}` });

describe("the control plane through the gateway", () => {
  it("a deployment is created and listed, each answer the emulator's with the gateway's RateLimit headers", async () => {
    const headers = { ...caller(), "x-tenant-id": crypto.randomUUID(), "content-type": "application/json" };
    const created = await controlPlaneViaGateway("/v2/deployments", {
      method: "POST",
      headers,
      body: JSON.stringify({
        name: "through-gateway",
        source: "github",
        source_config: { integration_id: GITHUB_INTEGRATION.id, repo_url: "https://github.com/acme/agent", deployment_type: "dev", build_on_push: false },
        source_revision_config: { repo_ref: "main", langgraph_config_path: "langgraph.json" },
        secrets: [],
      }),
    });
    expect(created.status).toBe(201);
    expect(created.headers.get("ratelimit-policy")).toMatch(/q=\d+;w=\d+/);
    const { id } = (await created.json()) as { id: string };

    const listed = await controlPlaneViaGateway("/v2/deployments", { headers });
    expect(listed.status).toBe(200);
    expect(listed.headers.get("ratelimit")).toMatch(/r=\d+;t=\d+/);
    const page = (await listed.json()) as { resources: Array<{ id: string }> };
    expect(page.resources.map((d) => d.id)).toEqual([id]);
  });

  it("the GitHub integrations are the control plane's, not the hosted API's", async () => {
    const headers = { ...caller(), "x-tenant-id": crypto.randomUUID() };
    const listed = await controlPlaneViaGateway("/v1/integrations/github/install", { headers });
    expect(listed.status).toBe(200);
    expect(listed.headers.get("ratelimit-policy")).toMatch(/q=\d+;w=\d+/);
    expect(await listed.json()).toEqual([GITHUB_INTEGRATION]);
    const repos = await controlPlaneViaGateway(`/v1/integrations/github/${GITHUB_INTEGRATION.id}/repos`, { headers });
    expect(repos.status).toBe(200);
    expect(((await repos.json()) as Array<{ host_integration_id: string }>).every((r) => r.host_integration_id === GITHUB_INTEGRATION.id)).toBe(true);
  });

  it("without credentials the emulator's own 401, through the gateway", async () => {
    const res = await controlPlaneViaGateway("/v2/listeners", { headers: { "cf-connecting-ip": caller()["cf-connecting-ip"]! } });
    expect(res.status).toBe(401);
    expect(await res.json()).toHaveProperty("detail");
  });
});
