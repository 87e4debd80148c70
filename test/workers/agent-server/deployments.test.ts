// Each deployment's own agent server, below /deployments/<id> of the agent-server emulator:
// provisioned and removed through the RPC entrypoint the control plane is bound to, open only to
// the deployment's workspace, and isolated from the shared agent server and from other deployments.
// The whole flow from the control plane, through the gateway: test/workers/through-gateway/deployment-flow.test.ts.
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { deploymentObjectName } from "../../../emulators/agent-server/state-access.ts";
import type { DeploymentProvisioning } from "../../../emulators/shared/deployment-provisioning.ts";
import { defaultWorkspaceId } from "../../../emulators/shared/workspace-credential.ts";
import { agentServerEnv } from "../support/emulator-env.ts";
import { agentServer, contractChecked } from "./support.ts";
import { stateObject } from "./clock.ts";

const BASE = "https://agent-server.test";

// `exports` is typed as the gateway's; in this project the test Worker is the agent-server emulator,
// and this is its entrypoint the control plane is bound to.
const provisioning = (exports as unknown as { DeploymentProvisioning: DeploymentProvisioning }).DeploymentProvisioning;

/** A provisioned deployment of a fresh workspace, with its workspace's key and a contract-checked caller. */
async function provisioned() {
  const id = crypto.randomUUID();
  const apiKey = `ws-key-${crypto.randomUUID()}`;
  await provisioning.provision(id, await defaultWorkspaceId(`api-key:${apiKey}`));
  const fetcher = contractChecked((request) => exports.default.fetch(request), `${BASE}/deployments/${id}`);
  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = { "x-api-key": apiKey }) => {
    const res = await fetcher(`${BASE}/deployments/${id}${path}`, {
      method,
      headers: { ...headers, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  };
  return { id, apiKey, call };
}

/** A call not held to the contract (the refusals below /deployments are the emulator's own). */
async function raw(path: string, headers: Record<string, string> = {}, init: RequestInit = {}) {
  const res = await exports.default.fetch(new Request(`${BASE}${path}`, { ...init, headers }));
  return { status: res.status, body: (await res.json()) as { detail: unknown } };
}

describe("a deployment's agent server", () => {
  it("serves the API on state of its own: threads and assistants are neither the shared server's nor another deployment's", async () => {
    const a = await provisioned();
    const b = await provisioned();
    const assistant = await a.call("POST", "/assistants", { graph_id: "agent", context: { system_prompt: "Deployed." } });
    expect(assistant.status).toBe(200);
    const thread = await a.call("POST", "/threads", {});
    expect(thread.status).toBe(200);
    const run = await a.call("POST", `/threads/${thread.body.thread_id}/runs/wait`, {
      assistant_id: assistant.body.assistant_id,
      input: { messages: [{ role: "user", content: "hi" }] },
    });
    expect(run.status).toBe(200);
    expect(run.body.messages.at(-1).content).toBe("Deployed. | you said: hi");

    expect((await a.call("GET", `/threads/${thread.body.thread_id}`)).status).toBe(200);
    expect((await b.call("GET", `/threads/${thread.body.thread_id}`)).status).toBe(404);
    expect((await b.call("GET", `/assistants/${assistant.body.assistant_id}`)).status).toBe(404);
    expect((await agentServer("GET", `/threads/${thread.body.thread_id}`)).status).toBe(404);
    // Each starts with the default assistants, as a new agent server does.
    expect((await b.call("POST", "/assistants/search", { graph_id: "agent" })).body).toHaveLength(1);
    expect((await a.call("POST", "/assistants/search", { graph_id: "agent" })).body).toHaveLength(2);
  });

  it("takes only its own workspace's callers: none is 401, another workspace's key 404, like an unknown deployment", async () => {
    const { id, call } = await provisioned();
    expect(await raw(`/deployments/${id}/threads/search`, {}, { method: "POST", body: "{}" })).toEqual({
      status: 401,
      body: { detail: expect.stringContaining("Not authenticated") },
    });
    expect((await call("POST", "/threads/search", {}, { "x-api-key": "someone-else" })).status).toBe(404);
    expect(await raw(`/deployments/${id}/ok`, { "x-api-key": "someone-else" })).toEqual({ status: 404, body: { detail: `Deployment ID ${id} not found.` } });
    expect((await raw(`/deployments/${id}/ok`, { "x-api-key": "k", "x-tenant-id": "not-a-uuid" })).status).toBe(422);
    // The credentials the control plane reads: the key (or a bearer token), and X-Tenant-Id only to
    // choose a workspace that key may use (issue 32, finding 3): the one key the control plane
    // provisioned the workspace with.
    const tenant = crypto.randomUUID();
    const other = crypto.randomUUID();
    const key = `tenant-key-${crypto.randomUUID()}`;
    await provisioning.provision(other, tenant, await defaultWorkspaceId(`api-key:${key}`));
    expect((await raw(`/deployments/${other}/ok`, { "x-api-key": key, "x-tenant-id": tenant })).status).toBe(200);
    expect((await raw(`/deployments/${other.toUpperCase()}/ok`, { "x-api-key": key, "x-tenant-id": tenant })).status).toBe(200);
    // A workspace id alone opens nothing; with any other key, or a bearer token that is not the key, it is refused.
    expect(await raw(`/deployments/${other}/ok`, { "x-tenant-id": tenant })).toEqual({
      status: 401,
      body: { detail: expect.stringContaining("Not authenticated") },
    });
    for (const headers of [{ "x-api-key": `fresh-${crypto.randomUUID()}` }, { authorization: `Bearer ${crypto.randomUUID()}` }] as Record<string, string>[]) {
      expect(await raw(`/deployments/${other}/ok`, { ...headers, "x-tenant-id": tenant })).toEqual({
        status: 403,
        body: { detail: expect.stringContaining("X-Tenant-Id") },
      });
    }
  });

  it("is a 404 for a deployment never provisioned, in any spelling: the registry answers, the registry unchanged", async () => {
    const id = crypto.randomUUID();
    const headers = { "x-api-key": "k" };
    for (const path of [
      `/deployments/${id}/ok`,
      `/deployments/${id}`,
      "/deployments/not-a-uuid/ok",
      `/deployments/%7B${id}%7D/ok`,
      `/deployments/${id}/../${id}/ok`,
    ]) {
      expect((await raw(path, headers)).status, path).toBe(404);
    }
    // /deployments itself names no deployment: the shared server's own 404.
    expect(await raw("/deployments", headers)).toEqual({ status: 404, body: { detail: "Not Found" } });
    const recorded = await runInDurableObject(
      agentServerEnv.AGENT_SERVER_DEPLOYMENTS.getByName("deployments"),
      (_, state: DurableObjectState) => state.storage.sql.exec("SELECT 1 FROM deployments WHERE id = ?", id).toArray().length,
    );
    expect(recorded).toBe(0);
  });

  it("provisioning again keeps its state; deprovisioning makes it a 404 and empties its object", async () => {
    const { id, apiKey, call } = await provisioned();
    const thread = await call("POST", "/threads", { metadata: { kept: true } });
    await provisioning.provision(id, await defaultWorkspaceId(`api-key:${apiKey}`));
    expect((await call("GET", `/threads/${thread.body.thread_id}`)).body.metadata).toEqual({ kept: true });

    await provisioning.deprovision(id);
    expect(await raw(`/deployments/${id}/threads/${thread.body.thread_id}`, { "x-api-key": apiKey })).toEqual({
      status: 404,
      body: { detail: `Deployment ID ${id} not found.` },
    });
    // Emptied and reset: reached again, it is a new agent server (no threads).
    const threads = await runInDurableObject(
      agentServerEnv.AGENT_SERVER_STATE.getByName(deploymentObjectName(id)),
      (_, state: DurableObjectState) => state.storage.sql.exec<{ n: number }>("SELECT count(*) AS n FROM threads").one().n,
    );
    expect(threads).toBe(0);
    // Idempotent.
    await provisioning.deprovision(id);
  });

  it("fires a deployment's crons into its own state", async () => {
    const { id, call } = await provisioned();
    const thread = await call("POST", "/threads", {});
    const cron = await call("POST", `/threads/${thread.body.thread_id}/runs/crons`, {
      schedule: "0 0 1 1 *",
      assistant_id: "agent",
      input: { messages: [{ role: "user", content: "tick" }] },
    });
    expect(cron.status).toBe(200);
    const state = stateObject(deploymentObjectName(id));
    await runInDurableObject(state, (object) => object.clock.advance(Date.parse(cron.body.next_run_date) - Date.parse(cron.body.created_at) + 1000));
    expect(await runDurableObjectAlarm(state)).toBe(true);
    const runs = await call("GET", `/threads/${thread.body.thread_id}/runs`);
    expect(runs.body).toHaveLength(1);
    const joined = await call("GET", `/threads/${thread.body.thread_id}/runs/${runs.body[0].run_id}/join`);
    expect(joined.body.messages.at(-1).content).toBe("you said: tick");
    // Nothing of it reached the shared server.
    expect((await agentServer("GET", `/threads/${thread.body.thread_id}/runs`)).status).toBe(404);
  });
});
