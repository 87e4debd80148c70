// The contract checker bound to the control-plane document (../contract/control-plane.ts): it must
// catch what the document forbids, or every other control-plane test would be checking nothing.
import { describe, expect, it } from "vitest";
import { checkResponse, ContractViolation, findOperation } from "../contract/control-plane.ts";
import { jsonResponse } from "../../support/responses.ts";

const check = (method: string, path: string, response: Response) => checkResponse({ method, path }, response);

const ID = crypto.randomUUID();
const NOW = "2026-11-25T10:00:00.000Z";
const revisionConfig = { repo_ref: "main", langgraph_config_path: "langgraph.json", image_uri: null, source_tarball_path: null, repo_commit_sha: null };
const deployment = {
  id: ID,
  tenant_id: ID,
  name: "agent",
  source: "github",
  source_config: { integration_id: ID, repo_url: "https://github.com/acme/agent", deployment_type: "dev" },
  source_revision_config: revisionConfig,
  secrets: [],
  secret_references: null,
  created_at: NOW,
  updated_at: NOW,
  status: "READY",
  latest_revision_id: ID,
  active_revision_id: ID,
  image_version: null,
};

describe("findOperation (control plane)", () => {
  it("finds operations by method and path template, fixed segments first", () => {
    expect(findOperation("DELETE", "/v2/deployments?deployment_ids=x")?.operationId).toBe("delete_deployments_v2_deployments_delete");
    expect(findOperation("POST", `/v2/deployments/${ID}/revisions/${ID}/redeploy`)?.path).toBe(
      "/v2/deployments/{deployment_id}/revisions/{revision_id}/redeploy",
    );
    expect(findOperation("GET", "/v1/integrations/forge/github/install")?.path).toBe("/v1/integrations/forge/github/install");
    expect(findOperation("GET", "/v2/sandboxes/templates")).toBeUndefined();
  });
});

describe("checkResponse (control plane) accepts", () => {
  it("documented answers, the bulk delete's 207 its description names, and FastAPI errors", async () => {
    await check("GET", `/v2/deployments/${ID}`, jsonResponse(200, deployment));
    await check("GET", "/v2/deployments", jsonResponse(200, { resources: [deployment], offset: 1 }));
    await check("DELETE", `/v2/deployments?deployment_ids=${ID}`, jsonResponse(207, {}));
    await check("GET", "/v1/integrations/github/install", jsonResponse(200, [{ id: ID, installation_id: 1, name: "acme" }]));
    await check("DELETE", `/v2/deployments/${ID}`, new Response(null, { status: 204 }));
    await check(
      "GET",
      "/v2/deployments?remote_reconciled=x",
      jsonResponse(422, {
        detail: [{ type: "bool_parsing", loc: ["query", "remote_reconciled"], msg: "Input should be a valid boolean, unable to interpret input", input: "x" }],
      }),
    );
  });
});

describe("checkResponse (control plane) refuses", () => {
  it.each([
    [
      "a deployment_type outside the enum (serverless)",
      "GET",
      `/v2/deployments/${ID}`,
      jsonResponse(200, { ...deployment, source_config: { ...deployment.source_config, deployment_type: "serverless" } }),
      /deployment_type/,
    ],
    [
      "a deployment without latest_revision_id",
      "GET",
      `/v2/deployments/${ID}`,
      jsonResponse(200, { ...deployment, latest_revision_id: undefined }),
      /latest_revision_id/,
    ],
    [
      "a repository without its default branch",
      "GET",
      `/v1/integrations/github/${ID}/repos`,
      jsonResponse(200, [{ host_integration_id: ID, id: 1, name: "a", owner: "b", url: "u" }]),
      /default_branch/,
    ],
    ["a redeploy answered 201", "POST", `/v2/deployments/${ID}/revisions/${ID}/redeploy`, jsonResponse(201, deployment), /status 201 is not documented/],
    ["a 422 that is not FastAPI's list", "GET", "/v2/deployments", jsonResponse(422, { detail: "bad" }), /error body/],
    ["a success for a path the document does not describe", "GET", "/v2/deployments/templates/x/y", jsonResponse(200, {}), /does not describe/],
  ] as const)("%s", async (_name, method, path, response, message) => {
    await expect(check(method, path, response)).rejects.toThrow(ContractViolation);
    await expect(check(method, path, response.clone())).rejects.toThrow(message);
  });
});
