// The spec's typical deployment flow, end to end through the gateway (the control plane's Quick
// Start: create, read, poll the latest revision to DEPLOYED, update), then the deployment used:
// a graph run with the official client (@langchain/langgraph-sdk) on the deployment's own agent
// server, at the URL its record reports, through the gateway and its limits; deleted, that URL is
// a 404. Every control-plane and agent-server answer is held to its reference document. Time is the
// test's: it moves the workspace's deployment clock with the emulator's switch
// (POST /v2/_emulator/workspaces/{id}/clock) instead of waiting for each status.
// docs/deployment-agent-servers.md, docs/emulators.md ("Time in tests").
import { exports } from "cloudflare:workers";
import { Client } from "@langchain/langgraph-sdk";
import { describe, expect, it } from "vitest";
import { DEFAULT_STEP_MS, PATHS } from "../../../emulators/control-plane/deployments/lifecycle.ts";
import { workspaceCredential } from "../../../emulators/shared/workspace-credential.ts";
import { contractChecked as agentServerChecked } from "../agent-server/support.ts";
import { CONTROL_PLANE_URL, controlPlaneFetch } from "../control-plane/support.ts";
import { randomClientIp } from "../../support/callers.ts";

/** One client of one workspace: its API key, and a client IP of its own (the gateway counts both). */
function workspaceCaller() {
  const headers = { "x-api-key": `flow-${crypto.randomUUID()}`, "cf-connecting-ip": randomClientIp() };
  const control = async (method: string, path: string, body?: unknown) => {
    const res = await controlPlaneFetch(`${CONTROL_PLANE_URL}${path}`, {
      method,
      headers: { ...headers, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined, headers: res.headers };
  };
  /** Lets a status step pass on the caller's workspace's deployment clock (the emulator's switch). */
  let steps = 0;
  const advance = async () => {
    // A revision is final after PATHS.deployed.length - 1 steps: more means the clock moves nothing.
    expect(++steps, "status steps").toBeLessThanOrEqual(2 * PATHS.deployed.length);
    const credential = await workspaceCredential(new Headers(headers));
    if (credential.kind !== "workspace") throw new Error(`no workspace for ${JSON.stringify(credential)}`);
    const moved = await control("POST", `/v2/_emulator/workspaces/${credential.workspaceId}/clock`, { advance_ms: DEFAULT_STEP_MS });
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
  };
  return { headers, control, advance };
}

/** The gateway's fetch with the caller's client IP, every agent-server answer held to its document below `baseUrl`. */
function gatewayFetch(baseUrl: string, ip: string) {
  const checked = agentServerChecked((request) => exports.default.fetch(request), baseUrl);
  return (input: RequestInfo | URL, init?: RequestInit) => {
    const headers = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined));
    headers.set("cf-connecting-ip", ip);
    return checked(input, { ...init, headers });
  };
}

describe("the typical deployment flow, through the gateway", () => {
  it("create, read, poll to DEPLOYED, update; then a graph run with the official client on the deployment's own agent server; deleted, a 404", async () => {
    const { headers, control, advance } = workspaceCaller();

    // The integration a github deployment needs, found the documented way.
    const integrations = await control("GET", "/v1/integrations/github/install");
    expect(integrations.status).toBe(200);
    const integrationId = integrations.body[0].id as string;

    // 1. Create.
    const created = await control("POST", "/v2/deployments", {
      name: `flow-${crypto.randomUUID().slice(0, 8)}`,
      source: "github",
      source_config: { integration_id: integrationId, repo_url: "https://github.com/acme/agent", deployment_type: "dev", build_on_push: false },
      source_revision_config: { repo_ref: "main", langgraph_config_path: "langgraph.json" },
      secrets: [{ name: "OPENAI_API_KEY", value: "sk-flow" }],
    });
    expect(created.status).toBe(201);
    expect(created.headers.get("ratelimit-policy")).toMatch(/q=\d+;w=\d+/);
    const { id, latest_revision_id: firstRevision } = created.body as { id: string; latest_revision_id: string };
    // No agent server before a revision has deployed.
    expect(created.body.source_config.custom_url).toBeNull();

    // 2. Read.
    const read = await control("GET", `/v2/deployments/${id}`);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ id, latest_revision_id: firstRevision });

    // 3. Poll the latest revision until DEPLOYED, a status step (CONTROL_PLANE_REVISION_STEP_MS,
    // the emulator's default here) passing between polls.
    const seen = new Set<string>();
    for (let status = ""; status !== "DEPLOYED"; await advance()) {
      const revision = await control("GET", `/v2/deployments/${id}/revisions/${firstRevision}`);
      expect(revision.status).toBe(200);
      status = revision.body.status;
      seen.add(status);
      expect(["CREATING", "QUEUED", "AWAITING_BUILD", "BUILDING", "AWAITING_DEPLOY", "DEPLOYING", "DEPLOYED"]).toContain(status);
    }
    expect(seen.has("DEPLOYED")).toBe(true);

    // The record now reports the deployment's agent server: below /deployments on the gateway it was reached at.
    const deployed = await control("GET", `/v2/deployments/${id}`);
    expect(deployed.body).toMatchObject({ status: "READY", active_revision_id: firstRevision });
    const url = deployed.body.source_config.custom_url as string;
    expect(url).toBe(`${CONTROL_PLANE_URL}/deployments/${id}`);

    // 4. Update: a new revision; the agent server stays.
    const patched = await control("PATCH", `/v2/deployments/${id}`, { source_revision_config: { repo_ref: "release" } });
    expect(patched.status).toBe(200);
    expect(patched.body.latest_revision_id).not.toBe(firstRevision);
    expect(patched.body.source_config.custom_url).toBe(url);
    const listed = await control("GET", `/v2/deployments?deployment_ids=${id}`);
    expect(listed.body.resources[0].source_config.custom_url).toBe(url);

    // Then the deployment is used: the official client, its base URL the reported one.
    const client = new Client({
      apiUrl: url,
      apiKey: headers["x-api-key"],
      callerOptions: { maxRetries: 0, fetch: gatewayFetch(url, headers["cf-connecting-ip"]) },
    });
    const assistant = await client.assistants.create({ graphId: "agent", context: { system_prompt: "You are deployed." } });
    const thread = await client.threads.create({ metadata: { deployment: id } });
    const chunks: Array<{ event: string; data: any }> = [];
    for await (const chunk of client.runs.stream(thread.thread_id, assistant.assistant_id, {
      input: { messages: [{ role: "user", content: "hello" }] },
      streamMode: "updates",
    })) {
      chunks.push(chunk as { event: string; data: any });
    }
    expect(chunks.find((c) => c.event === "updates")?.data.agent.messages[0].content).toBe("You are deployed. | you said: hello");
    expect(((await client.threads.get(thread.thread_id)).values as any).messages).toHaveLength(2);

    // Through the gateway and its limits: the agent server's table, as below /agent-server.
    const info = await gatewayFetch(url, headers["cf-connecting-ip"])(`${url}/info`, { headers: { "x-api-key": headers["x-api-key"] } });
    expect(info.status).toBe(200);
    expect(info.headers.get("ratelimit-policy")).toBe('"agent-server-high-throughput-ip";q=2000;w=10');
    const search = await gatewayFetch(url, headers["cf-connecting-ip"])(`${url}/threads/search`, {
      method: "POST",
      headers: { "x-api-key": headers["x-api-key"], "content-type": "application/json" },
      body: "{}",
    });
    expect(search.headers.get("ratelimit-policy")).toBe('"agent-server-default-key";q=1000;w=10');
    expect(((await search.json()) as Array<{ thread_id: string }>).map((t) => t.thread_id)).toEqual([thread.thread_id]);

    // Its own state: not the shared agent server's, and not another workspace's to use.
    const shared = await exports.default.fetch(new Request(`${CONTROL_PLANE_URL}/agent-server/threads/${thread.thread_id}`, { headers }));
    expect(shared.status).toBe(404);
    const stranger = await exports.default.fetch(
      new Request(`${url}/threads/${thread.thread_id}`, { headers: { ...headers, "x-api-key": `other-${crypto.randomUUID()}` } }),
    );
    expect(stranger.status).toBe(404);

    // Deleted: the same URL answers 404, with the API's error shape.
    expect((await control("DELETE", `/v2/deployments/${id}`)).status).toBe(204);
    await expect(client.threads.get(thread.thread_id)).rejects.toMatchObject({ status: 404 });
    const gone = await exports.default.fetch(new Request(`${url}/threads/${thread.thread_id}`, { headers }));
    expect(gone.status).toBe(404);
    expect(await gone.json()).toEqual({ detail: `Deployment ID ${id} not found.` });
    expect((await control("GET", `/v2/deployments/${id}`)).status).toBe(404);
  });

  it("every source gets an agent server; custom_url is reported as the document says per source; a bulk delete takes them all", async () => {
    const { headers, control, advance } = workspaceCaller();
    const integrationId = (await control("GET", "/v1/integrations/github/install")).body[0].id as string;
    const name = (kind: string) => `${kind}-${crypto.randomUUID().slice(0, 8)}`;
    const bodies = {
      github: {
        name: name("github"),
        source: "github",
        source_config: { integration_id: integrationId, repo_url: "https://github.com/acme/agent", deployment_type: "dev" },
        source_revision_config: { repo_ref: "main", langgraph_config_path: "langgraph.json" },
        secrets: [],
      },
      external_docker: {
        name: name("docker"),
        source: "external_docker",
        source_config: { listener_id: crypto.randomUUID(), listener_config: { k8s_namespace: "agents" }, custom_url: "https://agents.acme.example/docker" },
        source_revision_config: { image_uri: "registry.example.com/agent:1.0" },
        secrets: [],
      },
      internal_source: {
        name: name("source"),
        source: "internal_source",
        source_config: {},
        source_revision_config: { langgraph_config_path: "langgraph.json", source_tarball_path: "uploads/agent.tgz" },
        secrets: [],
      },
    };
    const ids: Record<string, string> = {};
    for (const [source, body] of Object.entries(bodies)) {
      const created = await control("POST", "/v2/deployments", body);
      expect(created.status, source).toBe(201);
      ids[source] = created.body.id;
    }
    for (let waiting = Object.values(ids); waiting.length > 0; await advance()) {
      // The listing's filter is comma separated (the bulk delete's is a repeated parameter).
      const listed = await control("GET", `/v2/deployments?deployment_ids=${waiting.join(",")}`);
      expect(listed.status, JSON.stringify(listed.body)).toBe(200);
      waiting = (listed.body.resources as Array<{ id: string; status: string }>).filter((d) => d.status !== "READY").map((d) => d.id);
    }
    const custom = async (id: string) => (await control("GET", `/v2/deployments/${id}`)).body.source_config.custom_url;
    // github: set automatically (read only); external_docker: its owner's URL, kept; internal: none.
    expect(await custom(ids.github!)).toBe(`${CONTROL_PLANE_URL}/deployments/${ids.github}`);
    expect(await custom(ids.external_docker!)).toBe("https://agents.acme.example/docker");
    expect(await custom(ids.internal_source!)).toBeNull();
    const ok = (id: string) => exports.default.fetch(new Request(`${CONTROL_PLANE_URL}/deployments/${id}/ok`, { headers }));
    for (const id of Object.values(ids)) expect((await ok(id)).status, id).toBe(200);

    const deleted = await control(
      "DELETE",
      `/v2/deployments?${Object.values(ids)
        .map((id) => `deployment_ids=${id}`)
        .join("&")}`,
    );
    expect(deleted.status).toBe(200);
    for (const id of Object.values(ids)) expect((await ok(id)).status, id).toBe(404);
  });
});
