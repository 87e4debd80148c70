import { describe, expect, test } from "vitest";
import { EMPTY_SOURCE_CONFIG, SECRET_MASK } from "../../../emulators/control-plane/deployments/model.ts";
import { planPatch, type PatchTarget } from "../../../emulators/control-plane/deployments/patch.ts";
import { DeploymentPatchRequest } from "../../../emulators/control-plane/deployments/schema.ts";

const github: PatchTarget = {
  source: "github",
  sourceConfig: {
    ...EMPTY_SOURCE_CONFIG,
    integration_id: "00000000-0000-4000-8000-000000000001",
    repo_url: "https://github.com/acme/agent",
    deployment_type: "dev",
    build_on_push: false,
  },
  secrets: [{ name: "OPENAI_API_KEY", value: "sk-1" }],
  secretReferences: null,
  latest: { source: "github", config: { repo_ref: "main", langgraph_config_path: "langgraph.json", image_uri: null, source_tarball_path: null } },
};

const docker: PatchTarget = {
  source: "external_docker",
  sourceConfig: { ...EMPTY_SOURCE_CONFIG, listener_id: "00000000-0000-4000-8000-0000000000aa", listener_config: { k8s_namespace: "agents" } },
  secrets: [],
  secretReferences: null,
  latest: { source: "external_docker", config: { repo_ref: null, langgraph_config_path: null, image_uri: "agent:1", source_tarball_path: null } },
};

const plan = (target: PatchTarget, body: unknown) => planPatch(target, DeploymentPatchRequest.parse(body));

describe("planPatch", () => {
  test.each([
    [{ source_revision_config: { repo_ref: "release" } }, { repo_ref: "release", langgraph_config_path: "langgraph.json" }],
    [{ source_revision_config: { langgraph_config_path: "apps/langgraph.json" } }, { repo_ref: "main", langgraph_config_path: "apps/langgraph.json" }],
    [{ source_revision_config: { repo_ref: "main" } }, { repo_ref: "main" }],
    [{ secrets: [{ name: "K", value: "v" }] }, { repo_ref: "main" }],
    [{ source_config: { resource_spec: { cpu: 1 } } }, { repo_ref: "main" }],
  ])("%j makes a new revision", (body, config) => {
    const decision = plan(github, body);
    expect(decision.ok && decision.plan.revision).toMatchObject({ source: "github", config });
  });

  test.each([{}, { source_config: { install_command: "pnpm i" } }, { source_revision_config: { repo_ref: null } }, { secret_references: [] }])(
    "%j makes no revision",
    (body) => {
      const decision = plan(github, body);
      expect(decision.ok && decision.plan.revision).toBeNull();
    },
  );

  test("null leaves a stored value, a value replaces it", () => {
    const decision = plan(github, { source_config: { build_on_push: true, custom_url: null, install_command: "pnpm i" } });
    expect(decision.ok && decision.plan.sourceConfig).toEqual({ ...github.sourceConfig, build_on_push: true, install_command: "pnpm i" });
  });

  test.each([
    ["repo_url", github, { source_config: { repo_url: "https://github.com/acme/other" } }],
    ["integration_id", github, { source_config: { integration_id: "00000000-0000-4000-8000-000000000002" } }],
    ["deployment_type", github, { source_config: { deployment_type: "prod" } }],
    ["listener_id", docker, { source_config: { listener_id: "00000000-0000-4000-8000-0000000000bb" } }],
    ["listener_config.k8s_namespace", docker, { source_config: { listener_config: { k8s_namespace: "other" } } }],
  ] as const)("refuses a new %s, naming it", (field, target, body) => {
    const decision = plan(target, body);
    expect(decision.ok).toBe(false);
    if (!decision.ok) expect(decision.detail).toMatch(new RegExp(`^source_config\\.${field.replace(".", "\\.")} cannot be changed`));
  });

  test("accepts an immutable field sent with its stored value", () => {
    expect(plan(github, { source_config: { repo_url: github.sourceConfig.repo_url, deployment_type: "dev" } }).ok).toBe(true);
  });

  test("a masked secret keeps its stored value; an unknown masked one is refused", () => {
    const kept = plan(github, {
      secrets: [
        { name: "OPENAI_API_KEY", value: SECRET_MASK },
        { name: "NEW", value: "n" },
      ],
    });
    expect(kept.ok && kept.plan.secrets).toEqual([
      { name: "OPENAI_API_KEY", value: "sk-1" },
      { name: "NEW", value: "n" },
    ]);
    const refused = plan(github, { secrets: [{ name: "OTHER", value: SECRET_MASK }] });
    expect(refused).toMatchObject({ ok: false, detail: expect.stringContaining("'OTHER'") });
  });

  test("a revision from another source starts from that source's fields only", () => {
    const decision = plan(github, {
      revision_source: "internal_source",
      source_revision_config: { source_tarball_path: "uploads/a.tgz", langgraph_config_path: "langgraph.json" },
    });
    expect(decision.ok && decision.plan.revision).toEqual({
      source: "internal_source",
      config: { repo_ref: null, langgraph_config_path: "langgraph.json", image_uri: null, source_tarball_path: "uploads/a.tgz" },
    });
    const missing = plan(github, { revision_source: "internal_source", source_revision_config: { source_tarball_path: "uploads/a.tgz" } });
    expect(missing).toMatchObject({ ok: false, detail: expect.stringContaining("source_revision_config.langgraph_config_path") });
  });

  test("refuses a patch that breaks a per-source rule", () => {
    expect(plan(docker, { source_revision_config: { langgraph_config_path: "langgraph.json" } })).toMatchObject({
      ok: false,
      detail: expect.stringContaining("must be null for source 'external_docker'"),
    });
    expect(plan(github, { source_config: { build_on_push: true }, source_revision_config: { repo_ref: "refs/tags/v1" } })).toMatchObject({
      ok: false,
      detail: expect.stringContaining("source_config.build_on_push"),
    });
  });
});
