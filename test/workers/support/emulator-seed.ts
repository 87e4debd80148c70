import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { createAssistant, createThread, streamRun } from "../agent-server/support.ts";
import { controlPlane } from "../control-plane/support.ts";
import { GITHUB_INTEGRATION } from "../../../emulators/control-plane/integrations/seed.ts";
import type { ControlPlaneWorkspaceRpc } from "../../../emulators/control-plane/workspace-rpc.ts";
import type { EmulatorState } from "./emulator-state.ts";
import { controlPlaneEnv, THIS_EMULATOR } from "./emulator-env.ts";

/**
 * Real state in both emulators for refused requests to (not) damage: an assistant, a thread with
 * a finished run, and in one control-plane workspace a listener, a template and a deployment.
 * Each kind is (re)created only when its table has fewer rows than wanted, so a fuzzed DELETE that
 * succeeded is made good before the next request.
 */
const KINDS = [
  // Two default assistants always exist; one more is the fuzz's own.
  { object: "agentServer", table: "assistants", rows: 3, seed: seedAssistant },
  { object: "agentServer", table: "threads", rows: 1, seed: () => createThread({ metadata: { seeded: true } }) },
  { object: "agentServer", table: "runs", rows: 1, seed: seedRun },
  { object: "workspace", table: "listeners", rows: 1, seed: seedListener },
  { object: "workspace", table: "sandbox_templates", rows: 1, seed: seedTemplate },
  { object: "workspace", table: "deployments", rows: 1, seed: seedDeployment },
] as const;

/**
 * Prepares the workspace (its deployments on a clock that stands still, see below) and seeds
 * every kind of object. Call once before fuzzing.
 */
export async function prepareWorkspace(workspaceId: string): Promise<void> {
  if (THIS_EMULATOR !== "control-plane") return;
  // Revisions move on the store's clock, on alarms. With the clock a day ahead of real time, every
  // transition is due: running the alarm now takes each revision to its end state, after which
  // nothing changes unless a request does. Called before every fuzzed request, since the object
  // may have restarted meanwhile (a busy machine evicts idle objects) and lost its test clock.
  const stub = controlPlaneEnv.CONTROL_PLANE_WORKSPACES.getByName(workspaceId);
  await runInDurableObject(stub, clockAhead);
  await ringAlarms(workspaceId);
}

/** Sets the workspace object's deployments on a clock a day ahead (prepareWorkspace), in a call into it. */
export function clockAhead(instance: Pick<ControlPlaneWorkspaceRpc, "deployments">): void {
  const now = Date.now() + 86_400_000;
  instance.deployments().clock = () => now;
}

/** Runs the workspace object's alarm until none is set (each ring may set the next transition's). */
export async function ringAlarms(workspaceId: string): Promise<void> {
  const stub = controlPlaneEnv.CONTROL_PLANE_WORKSPACES.getByName(workspaceId);
  for (let ring = 0; ring < 20 && (await runDurableObjectAlarm(stub)); ring++);
}

/** Seeds each kind that is missing from `state`; answers whether anything was created. */
export async function seedMissing(state: EmulatorState, workspaceId: string): Promise<boolean> {
  let seeded = false;
  for (const kind of KINDS) {
    // Only this project's emulator (the other one is not here to seed).
    if ((kind.object === "workspace") !== (THIS_EMULATOR === "control-plane")) continue;
    if ((state[kind.object].tables[kind.table]?.rows ?? 0) >= kind.rows) continue;
    await kind.seed(workspaceId);
    seeded = true;
  }
  return seeded;
}

function seedAssistant() {
  return createAssistant({ graph_id: "agent", name: "seeded", context: { system_prompt: "seeded" }, metadata: { seeded: true }, config: { tags: ["seeded"] } });
}

async function seedRun() {
  const thread = await createThread();
  const { res } = await streamRun(thread.thread_id, { assistant_id: "agent", input: { messages: [{ role: "user", content: "seed" }] } });
  if (res.status !== 200) throw new Error(`seed run: ${res.status}`);
}

async function seedListener(workspace: string) {
  const body = { compute_type: "k8s", compute_id: `seeded-${crypto.randomUUID()}`, compute_config: { k8s_namespaces: ["seeded"] } };
  expectCreated("listener", await controlPlane("POST", "/v2/listeners", { workspace, body }));
}

async function seedTemplate(workspace: string) {
  const body = { name: `seeded-${crypto.randomUUID()}`, image: "python:3.12-slim" };
  expectCreated("template", await controlPlane("POST", "/v2/sandboxes/templates", { workspace, body }));
}

async function seedDeployment(workspace: string) {
  const body = {
    name: `seeded-${crypto.randomUUID()}`,
    source: "github",
    source_config: { integration_id: GITHUB_INTEGRATION.id, repo_url: "https://github.com/acme/agent", deployment_type: "dev" },
    source_revision_config: { repo_ref: "main", langgraph_config_path: "langgraph.json" },
    secrets: [{ name: "OPENAI_API_KEY", value: "sk-seeded" }],
  };
  expectCreated("deployment", await controlPlane("POST", "/v2/deployments", { workspace, body }));
}

function expectCreated(what: string, res: { status: number; body: unknown }) {
  if (res.status !== 201) throw new Error(`seed ${what}: ${res.status} ${JSON.stringify(res.body)}`);
}
