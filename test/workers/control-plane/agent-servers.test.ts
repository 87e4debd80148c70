// The control plane's side of a deployment's agent server, in the control plane's own project,
// where (as in a control plane deployed alone) nothing binds it to the agent-server emulator: its
// deployments still deploy, and report no agent server. The bound case, through the gateway:
// test/workers/through-gateway/deployment-flow.test.ts. docs/deployment-agent-servers.md.
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import { agentServerUrlTemplate } from "../../../emulators/control-plane/deployments/agent-server-url.ts";
import { AgentServers } from "../../../emulators/control-plane/deployments/agent-servers.ts";
import type { ControlPlaneEnv } from "../../../emulators/control-plane/auth.ts";
import { createEmulatorApp } from "../../../emulators/shared/app.ts";
import type { DeploymentProvisioning } from "../../../emulators/shared/deployment-provisioning.ts";
import { controlPlaneEnv } from "../support/emulator-env.ts";
import { create, manualClock, revisionOf, STEP, workspaceObject } from "./deployment-support.ts";
import { controlPlane, freshWorkspace } from "./support.ts";

describe("without the agent-server binding (a control plane deployed alone)", () => {
  it("a github deployment still reaches DEPLOYED and READY; custom_url stays null and nothing is provisioned", async () => {
    expect(controlPlaneEnv.DEPLOYMENT_AGENT_SERVERS).toBeUndefined();
    const workspace = freshWorkspace();
    const clock = await manualClock(workspace);
    const deployment = await create(workspace);
    clock.advance(10 * STEP);
    expect((await revisionOf(workspace, deployment.id, deployment.latest_revision_id)).body.status).toBe("DEPLOYED");
    const read = await controlPlane("GET", `/v2/deployments/${deployment.id}`, { workspace });
    expect(read.body).toMatchObject({ status: "READY", source_config: { custom_url: null } });
    const recorded = await runInDurableObject(
      workspaceObject(workspace),
      (_, state) => state.storage.sql.exec("SELECT count(*) AS n FROM deployment_agent_servers").one().n,
    );
    expect(recorded).toBe(0);
  });
});

describe("where a deployment's agent server answers (agentServerUrlTemplate)", () => {
  const bound = {} as DeploymentProvisioning;
  const app = createEmulatorApp<ControlPlaneEnv>("control_plane").get("/v2/deployments", (c) => c.json({ template: agentServerUrlTemplate(c) }));
  const template = async (env: Record<string, unknown>, headers: Record<string, string> = {}, url = "https://control-plane.test/v2/deployments") => {
    const res = await app.request(url, { headers }, env);
    return { status: res.status, body: (await res.json()) as { template?: string | null; detail?: string } };
  };

  it("is below /deployments on the origin the client called: the gateway's forwarded host and scheme, else the request's", async () => {
    expect((await template({ DEPLOYMENT_AGENT_SERVERS: bound }, { "x-forwarded-host": "127.0.0.1:8787", "x-forwarded-proto": "http" })).body.template).toBe(
      "http://127.0.0.1:8787/deployments/{deployment_id}",
    );
    expect((await template({ DEPLOYMENT_AGENT_SERVERS: bound })).body.template).toBe("https://control-plane.test/deployments/{deployment_id}");
    // Values that are not a host or a scheme (a caller's own, without a gateway) are not written into a record.
    expect((await template({ DEPLOYMENT_AGENT_SERVERS: bound }, { "x-forwarded-host": "evil.test/x?", "x-forwarded-proto": "javascript" })).body.template).toBe(
      "https://control-plane.test/deployments/{deployment_id}",
    );
  });

  it("is DEPLOYMENT_URL_TEMPLATE when set (a gateway routing by host); a template without {deployment_id} or not http(s) is a 500 naming the setting", async () => {
    expect((await template({ DEPLOYMENT_AGENT_SERVERS: bound, DEPLOYMENT_URL_TEMPLATE: "https://{deployment_id}.agents.us.example.com" })).body.template).toBe(
      "https://{deployment_id}.agents.us.example.com",
    );
    for (const bad of ["https://agents.example.com", "ftp://{deployment_id}.example.com"]) {
      const res = await template({ DEPLOYMENT_AGENT_SERVERS: bound, DEPLOYMENT_URL_TEMPLATE: bad });
      expect(res.status).toBe(500);
      expect(res.body.detail).toMatch(/^DEPLOYMENT_URL_TEMPLATE must be an http\(s\) URL containing \{deployment_id\}/);
    }
  });

  it("is none without the binding, whatever the template", async () => {
    expect((await template({ DEPLOYMENT_URL_TEMPLATE: "https://{deployment_id}.agents.us.example.com" })).body.template).toBeNull();
  });
});

describe("provisioning (agent-servers.ts), with a stand-in for the agent-server entrypoint", () => {
  /** Records calls; fails while `failing`; a provision may be held until released. */
  function standIn() {
    const calls: string[] = [];
    let release: (() => void) | undefined;
    let entered!: () => void;
    const stand = {
      calls,
      /** Settles once a held provision has started. */
      entered: new Promise<void>((resolve) => (entered = resolve)),
      failing: false,
      hold: false,
      release: () => release?.(),
      async provision(deploymentId: string, workspaceId: string) {
        if (stand.failing) throw new Error("agent server unreachable");
        if (stand.hold) {
          const held = new Promise<void>((resolve) => (release = resolve));
          entered();
          await held;
        }
        calls.push(`provision ${deploymentId} ${workspaceId}`);
      },
      async deprovision(deploymentId: string) {
        if (stand.failing) throw new Error("agent server unreachable");
        calls.push(`deprovision ${deploymentId}`);
      },
    };
    return stand;
  }

  it("provisions a deployed deployment once, retries a failed call, reports the URL only once provisioned, and deprovisions a deleted one", async () => {
    const workspace = freshWorkspace();
    const clock = await manualClock(workspace);
    const deployment = await create(workspace);
    const stand = standIn();
    const inObject = <T>(work: (servers: AgentServers) => T | Promise<T>) =>
      runInDurableObject(workspaceObject(workspace), (_, state) => work(new AgentServers(state.storage.sql, stand)));
    await inObject((servers) => servers.plan(deployment.id, "https://gateway.test/deployments/{deployment_id}"));

    // Not deployed yet: nothing to do.
    expect(await inObject((servers) => servers.pending())).toBe(false);
    clock.advance(10 * STEP);
    expect((await revisionOf(workspace, deployment.id, deployment.latest_revision_id)).body.status).toBe("DEPLOYED");
    expect(await inObject((servers) => servers.pending())).toBe(true);

    stand.failing = true;
    const logged = vi.spyOn(console, "log").mockImplementation(() => {});
    await inObject((servers) => servers.sync());
    expect(logged.mock.calls.map(([line]) => JSON.parse(String(line)))).toContainEqual(
      expect.objectContaining({ event: "control_plane_agent_server_error", action: "provision", deployment_id: deployment.id }),
    );
    logged.mockRestore();
    const unprovisioned = await controlPlane("GET", `/v2/deployments/${deployment.id}`, { workspace });
    expect(unprovisioned.body.source_config.custom_url).toBeNull();

    stand.failing = false;
    await inObject((servers) => servers.sync());
    await inObject((servers) => servers.sync());
    expect(stand.calls).toEqual([`provision ${deployment.id} ${workspace}`]);
    const provisioned = await controlPlane("GET", `/v2/deployments/${deployment.id}`, { workspace });
    expect(provisioned.body.source_config.custom_url).toBe(`https://gateway.test/deployments/${deployment.id}`);
    // The read-only URL sent back with the rest of source_config (read, change, PATCH) is taken; another is refused.
    const echoed = await controlPlane("PATCH", `/v2/deployments/${deployment.id}`, {
      workspace,
      body: { source_config: { ...provisioned.body.source_config, build_on_push: true } },
    });
    expect(echoed.status).toBe(200);
    expect(echoed.body.source_config).toMatchObject({ build_on_push: true, custom_url: `https://gateway.test/deployments/${deployment.id}` });
    const other = await controlPlane("PATCH", `/v2/deployments/${deployment.id}`, {
      workspace,
      body: { source_config: { custom_url: "https://elsewhere.example" } },
    });
    expect(other).toMatchObject({ status: 400, body: { detail: "source_config.custom_url: custom_url can only be set for source 'external_docker'." } });

    expect((await controlPlane("DELETE", `/v2/deployments/${deployment.id}`, { workspace })).status).toBe(204);
    expect(await inObject((servers) => servers.pending())).toBe(true);
    await inObject((servers) => servers.sync());
    expect(stand.calls).toEqual([`provision ${deployment.id} ${workspace}`, `deprovision ${deployment.id}`]);
    expect(await inObject((servers) => servers.pending())).toBe(false);
  });

  it("runs one sync at a time: a deprovision never overtakes a provision still in flight", async () => {
    const workspace = freshWorkspace();
    const clock = await manualClock(workspace);
    const deployment = await create(workspace);
    clock.advance(10 * STEP);
    await revisionOf(workspace, deployment.id, deployment.latest_revision_id);
    const stand = standIn();
    stand.hold = true;
    await runInDurableObject(workspaceObject(workspace), async (_, state) => {
      const servers = new AgentServers(state.storage.sql, stand);
      servers.plan(deployment.id, "https://gateway.test/deployments/{deployment_id}");
      const first = servers.sync();
      await stand.entered;
      // The deployment goes while its provision is in flight; the next sync waits for it.
      state.storage.sql.exec("DELETE FROM deployments WHERE id = ?", deployment.id);
      const second = servers.sync();
      // One turn of the event loop, no time: whatever the second sync could do without waiting, it has done.
      await new Promise((resolve) => setTimeout(resolve, 0));
      expect(stand.calls).toEqual([]);
      stand.release();
      await Promise.all([first, second]);
    });
    expect(stand.calls).toEqual([`provision ${deployment.id} ${workspace}`, `deprovision ${deployment.id}`]);
  });
});
