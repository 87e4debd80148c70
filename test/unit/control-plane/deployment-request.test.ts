import { describe, expect, test } from "vitest";
import { DeploymentCreateRequest, DeploymentListQuery, RevisionListQuery } from "../../../emulators/control-plane/deployments/schema.ts";
import { toValidationErrors } from "../../../src/http/fastapi-errors.ts";

const github = {
  name: "agent",
  source: "github",
  source_config: { repo_url: "https://github.com/acme/agent", deployment_type: "serverless" },
  source_revision_config: { repo_ref: "main", langgraph_config_path: "langgraph.json" },
  secrets: [],
};

/** The FastAPI 422 entries a body would get. */
const errors = (body: unknown) => {
  const result = DeploymentCreateRequest.safeParse(body);
  return result.success ? [] : toValidationErrors(result.error.issues, "body", body);
};

describe("DeploymentCreateRequest", () => {
  test("accepts the documented shape with deployment_type serverless and drops unknown fields", () => {
    const parsed = DeploymentCreateRequest.parse({ ...github, extra: 1, source_config: { ...github.source_config, extra: 2 } });
    expect(parsed).not.toHaveProperty("extra");
    expect(parsed.source_config).toEqual(github.source_config);
  });

  test.each([
    [
      "internal_source",
      { source: "internal_source", source_config: {}, source_revision_config: { source_tarball_path: "u/a.tgz" } },
      ["body", "source_revision_config", "langgraph_config_path"],
    ],
    [
      "internal_docker",
      { source: "internal_docker", source_config: {}, source_revision_config: { langgraph_config_path: "l.json" } },
      ["body", "source_revision_config", "langgraph_config_path"],
    ],
    [
      "external_docker",
      { source: "external_docker", source_config: {}, source_revision_config: { image_uri: "" } },
      ["body", "source_revision_config", "image_uri"],
    ],
    ["github", { source_config: { repo_url: "r", custom_url: "https://agent.example.com" } }, ["body", "source_config", "custom_url"]],
    ["github", { source_revision_config: { langgraph_config_path: "l.json" } }, ["body", "source_revision_config", "repo_ref"]],
  ])("applies the %s rules as value errors at the field", (_source, overrides, loc) => {
    const [error, ...rest] = errors({ ...github, ...overrides });
    expect(rest).toEqual([]);
    expect(error).toMatchObject({ type: "value_error", loc });
    expect(error!.msg).toMatch(/^Value error, /);
  });

  test("accepts each source in its minimal valid form", () => {
    expect(errors({ ...github, source: "internal_docker", source_config: {}, source_revision_config: {} })).toEqual([]);
    expect(errors({ ...github, source: "internal_source", source_config: {}, source_revision_config: { langgraph_config_path: "l.json" } })).toEqual([]);
    expect(
      errors({ ...github, source: "external_docker", source_config: { custom_url: "https://a.example.com" }, source_revision_config: { image_uri: "a:1" } }),
    ).toEqual([]);
  });

  test("reports missing required fields as pydantic does", () => {
    expect(errors({}).map((e) => [e.type, e.loc])).toEqual([
      ["missing", ["body", "name"]],
      ["missing", ["body", "source"]],
      ["missing", ["body", "source_config"]],
      ["missing", ["body", "source_revision_config"]],
      ["missing", ["body", "secrets"]],
    ]);
  });

  test("bounds and rounds resource_spec CPU", () => {
    const parsed = DeploymentCreateRequest.parse({ ...github, source_config: { ...github.source_config, resource_spec: { cpu: 0.55, memory_mb: 1024 } } });
    expect(parsed.source_config.resource_spec).toEqual({ cpu: 0.6, memory_mb: 1024 });
    expect(errors({ ...github, source_config: { ...github.source_config, resource_spec: { cpu: 9 } } })[0]).toMatchObject({
      type: "less_than_equal",
      loc: ["body", "source_config", "resource_spec", "cpu"],
    });
  });
});

describe("list queries", () => {
  test("split comma separated filters, skipping empty items, and default the paging", () => {
    expect(DeploymentListQuery.parse({ status: "READY, UNUSED,", deployment_ids: "0000000A-0000-4000-8000-000000000001" })).toEqual({
      limit: 20,
      offset: 0,
      status: ["READY", "UNUSED"],
      deployment_ids: ["0000000a-0000-4000-8000-000000000001"],
    });
    expect(RevisionListQuery.parse({ status: "DEPLOYED,BUILD_FAILED", limit: "100" })).toEqual({ limit: 100, offset: 0, status: ["DEPLOYED", "BUILD_FAILED"] });
  });
});
