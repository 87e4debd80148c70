// Deployments as the control-plane tests make and drive them: request bodies, a hand-driven clock
// for the workspace's DeploymentStore, and reads of what the object persisted.
import { runInDurableObject } from "cloudflare:test";
import { expect } from "vitest";
import { GITHUB_INTEGRATION } from "../../../emulators/control-plane/integrations/seed.ts";
import { controlPlaneEnv } from "../support/emulator-env.ts";
import { controlPlane } from "./support.ts";

/** CONTROL_PLANE_REVISION_STEP_MS: one status per step. */
export const STEP = Number(controlPlaneEnv.CONTROL_PLANE_REVISION_STEP_MS);

/** A secret value no answer may contain. */
export const SECRET = "sk-do-not-leak-4242";

/** A `github` deployment from the workspace's seeded integration (integrations/seed.ts). */
export function githubDeployment(name = `agent-${crypto.randomUUID().slice(0, 8)}`, overrides: Record<string, unknown> = {}) {
  return {
    name,
    source: "github",
    source_config: { integration_id: GITHUB_INTEGRATION.id, repo_url: "https://github.com/acme/agent", deployment_type: "dev", build_on_push: false },
    source_revision_config: { repo_ref: "main", langgraph_config_path: "langgraph.json" },
    secrets: [{ name: "OPENAI_API_KEY", value: SECRET }],
    ...overrides,
  };
}

export function dockerDeployment(overrides: Record<string, unknown> = {}) {
  return {
    name: `docker-${crypto.randomUUID().slice(0, 8)}`,
    source: "external_docker",
    source_config: { listener_id: crypto.randomUUID(), listener_config: { k8s_namespace: "agents" } },
    source_revision_config: { image_uri: "registry.example.com/agent:1.0" },
    secrets: [],
    ...overrides,
  };
}

export function workspaceObject(workspace: string) {
  return controlPlaneEnv.CONTROL_PLANE_WORKSPACES.getByName(workspace);
}

/** A hand-driven clock for the workspace's DeploymentStore; re-install after an eviction. */
export async function manualClock(workspace: string, start = Date.now() + 86_400_000) {
  const clock = {
    now: start,
    async install() {
      await runInDurableObject(workspaceObject(workspace), (instance) => {
        instance.deployments().clock = () => clock.now;
      });
    },
    advance(ms: number) {
      clock.now += ms;
    },
  };
  await clock.install();
  return clock;
}

/** What the object has persisted for a revision, read without going through the store (no catch-up). */
export function storedRevision(workspace: string, revisionId: string) {
  return runInDurableObject(workspaceObject(workspace), (_instance, state) => {
    const rows = state.storage.sql.exec("SELECT status, updated_ms, next_at FROM deployment_revisions WHERE id = ?", revisionId).toArray();
    return rows[0] as { status: string; updated_ms: number; next_at: number | null } | undefined;
  });
}

export function scheduledAlarm(workspace: string) {
  return runInDurableObject(workspaceObject(workspace), (_instance, state) => state.storage.getAlarm());
}

export async function create(workspace: string, body: unknown = githubDeployment()) {
  const res = await controlPlane("POST", "/v2/deployments", { workspace, body });
  expect(res.status).toBe(201);
  return res.body;
}

export const revisionOf = (workspace: string, deploymentId: string, revisionId: string) =>
  controlPlane("GET", `/v2/deployments/${deploymentId}/revisions/${revisionId}`, { workspace });
