// Each upstream on its own address (issue 11 part 1) and each counted by its own table (part 2).
import { afterEach, describe, expect, it, vi } from "vitest";
import { burst, freshIdentity, gateway, keyed } from "../support/requests.ts";
import { OBJECTS_PER_RULE } from "../../../src/core/limiter/index.ts";
import { gatewayWith, recordingLimiter, recordingUpstreams } from "../support/custom-gateway.ts";

afterEach(() => vi.restoreAllMocks());

const HOSTS = "api.example.test=hosted-api, control.example.test=control-plane, *.agents.example.test=agent-server";

// Paths each upstream documents; the agent server's collide with the hosted API's.
const DOCUMENTED = [
  "/runs/wait",
  "/runs/batch",
  "/runs",
  "/info",
  "/ok",
  "/metrics",
  "/store/items",
  "/assistants/search",
  "/threads",
  "/v2/deployments",
  "/runs/query",
  "/auth/login",
];

describe("deployed: the upstream is chosen by host (ROUTING=hosts)", () => {
  it.each([
    ["https://api.example.test", "hosted-api"],
    ["https://control.example.test", "control-plane"],
    ["https://my-deployment.agents.example.test", "agent-server"],
    ["https://a.b.agents.example.test", "agent-server"],
    ["https://API.Example.TEST", "hosted-api"],
  ])("every documented path on %s reaches the %s, and only it", async (origin, upstream) => {
    const upstreams = recordingUpstreams();
    const send = gatewayWith({ ROUTING: "hosts", UPSTREAM_HOSTS: HOSTS, ...upstreams.bindings });
    for (const path of DOCUMENTED) {
      const res = await send(`${origin}${path}`, { method: "POST", headers: keyed(freshIdentity()) });
      expect(res.status, path).toBe(200);
    }
    expect(upstreams.reached()).toEqual(DOCUMENTED.map((path) => `${upstream} ${path}`));
  });

  it.each(["https://gateway.test", "https://agents.example.test", "https://example.test", "https://api.example.test.evil.test"])(
    "refuses a host it does not serve (%s) with 421, before any counter or upstream",
    async (origin) => {
      const upstreams = recordingUpstreams();
      const limiter = recordingLimiter();
      const send = gatewayWith({ ROUTING: "hosts", UPSTREAM_HOSTS: HOSTS, COUNTERS: limiter.namespace, ...upstreams.bindings });
      const res = await send(`${origin}/runs/query`, { method: "POST", headers: keyed(freshIdentity()) });
      expect(res.status).toBe(421);
      expect(res.headers.get("content-type")).toBe("application/problem+json");
      expect(await res.json()).toMatchObject({ status: 421, detail: `This gateway does not serve the host ${new URL(origin).hostname}.` });
      expect(upstreams.reached()).toEqual([]);
      expect(limiter.calls.hits).toBe(0);
    },
  );

  it.each([
    ["", /UPSTREAM_HOSTS is not set/],
    ["api.example.test", /UPSTREAM_HOSTS: "api.example.test" is not host=upstream/],
    ["api.example.test=billing", /upstream must be one of hosted-api, control-plane, agent-server/],
    ["a.test=hosted-api, a.test=agent-server", /host a.test is listed twice/],
  ])("answers 500 naming the setting when UPSTREAM_HOSTS is %j", async (hosts, message) => {
    vi.spyOn(console, "log").mockImplementation(() => {});
    const res = await gatewayWith({ ROUTING: "hosts", UPSTREAM_HOSTS: hosts })("https://a.test/runs/query", { headers: keyed(freshIdentity()) });
    expect(res.status).toBe(500);
    expect(((await res.json()) as { detail: string }).detail).toMatch(message);
  });
});

describe("each upstream is counted by its own table", () => {
  it.each([
    ["/runs/query", "POST", '"runs-query-key";q=15;w=10', 12],
    ["/v2/deployments", "GET", '"control-plane-default-key";q=1000;w=10', 101],
    ["/agent-server/runs/wait", "POST", '"agent-server-default-key";q=1000;w=10', 201],
    ["/agent-server/assistants/search", "POST", '"agent-server-default-key";q=1000;w=10', 201],
  ])("%s %s: RateLimit-Policy %s, counted on row %i", async (path, method, policy, row) => {
    const limiter = recordingLimiter();
    const upstreams = recordingUpstreams();
    const res = await gatewayWith({ COUNTERS: limiter.namespace, ...upstreams.bindings })(path, { method, headers: keyed(freshIdentity()) });
    expect(res.headers.get("ratelimit-policy")).toBe(policy);
    expect(limiter.calls.names).toHaveLength(1);
    expect(limiter.calls.names[0]).toMatch(new RegExp(`^(us|eu):${row}:objects-${OBJECTS_PER_RULE}:\\d+$`));
  });

  it("an anonymous caller of the agent server meets the agent server's catch-all (100 per 60 s per IP)", async () => {
    const ip = freshIdentity().ip;
    const statuses = await burst(101, () => gateway("/agent-server/ok", { headers: { "cf-connecting-ip": ip } }), 20);
    expect(Object.fromEntries(statuses)).toMatchObject({ 429: 1 });
    const res = await gateway("/agent-server/ok", { headers: { "cf-connecting-ip": ip } });
    expect(res.status).toBe(429);
    expect(res.headers.get("ratelimit-policy")).toBe('"agent-server-public-ip";q=100;w=60');
    expect(((await res.json()) as { detail: string }).detail).toContain('Rate limit "agent-server-public-ip" (row 203');
  });
});

describe("a deployment's agent server, one local port (ROUTING=paths): /deployments/<id> counted as /agent-server", () => {
  const ID = "5b0c3a1e-9f2d-4c8a-8e1b-2a7f6d4c9e01";

  it.each([
    [`/deployments/${ID}/threads/search`, "agent-server", `/deployments/${ID}/threads/search`],
    [`/deployments/${ID}`, "agent-server", `/deployments/${ID}`],
    ["/deployments", "agent-server", "/deployments"],
    // Every spelling is read on the canonical path, as the agent server reads it, and forwarded as
    // sent (the URL parser resolves dot segments first, for the gateway and the agent server alike).
    [`/%64eployments/${ID}/threads/search`, "agent-server", `/%64eployments/${ID}/threads/search`],
    [`/x/../deployments/${ID}/threads/search`, "agent-server", `/deployments/${ID}/threads/search`],
    // Climbing out of the deployment lands where the canonical path says, counted there.
    [`/deployments/${ID}/%2e%2e/%2e%2e/runs/wait`, "hosted-api", "/runs/wait"],
    ["/deployments/%2e%2e/agent-server/info", "agent-server", "/info"],
    ["/deployments/../v2/deployments", "control-plane", "/v2/deployments"],
    ["/deploymentsx/y", "hosted-api", "/deploymentsx/y"],
    // A second prefix inside is the deployment's own path (its agent server has none there: 404).
    [`/deployments/${ID}/deployments/${ID}/threads/search`, "agent-server", `/deployments/${ID}/deployments/${ID}/threads/search`],
    [`/agent-server/deployments/${ID}/threads/search`, "agent-server", `/deployments/${ID}/threads/search`],
    // The instance segment is forwarded as sent, never decoded.
    ["/deployments/a%2520b/info", "agent-server", "/deployments/a%2520b/info"],
    [`/agent-server/%64eployments/${ID.toUpperCase()}/in%66o`, "agent-server", `/%64eployments/${ID.toUpperCase()}/in%66o`],
  ])("%s goes to the %s as %s", async (path, upstream, upstreamPath) => {
    const upstreams = recordingUpstreams();
    const res = await gatewayWith(upstreams.bindings)(path, { method: "POST", headers: keyed(freshIdentity()) });
    expect(res.status).toBe(200);
    expect(upstreams.reached()).toEqual([`${upstream} ${upstreamPath}`]);
  });

  it.each([
    `//deployments//${ID}/./threads//search/`,
    `/deployments/${ID}%2Fthreads%2Fsearch`,
    `/deployments/${ID}/threads/search/`,
    `/agent-server//deployments/${ID}/info`,
  ])("%s, which an agent server would route as another path, is refused 400 before any counter or upstream", async (path) => {
    const upstreams = recordingUpstreams();
    const limiter = recordingLimiter();
    const res = await gatewayWith({ COUNTERS: limiter.namespace, ...upstreams.bindings })(path, { method: "POST", headers: keyed(freshIdentity()) });
    expect(res.status).toBe(400);
    expect(upstreams.reached()).toEqual([]);
    expect(limiter.calls.hits).toBe(0);
  });

  it.each([
    ["/threads/search", "POST", '"agent-server-default-key";q=1000;w=10'],
    ["/info", "GET", '"agent-server-high-throughput-ip";q=2000;w=10'],
    ["/ok", "GET", '"agent-server-default-key";q=1000;w=10'],
  ])("%s %s: the same rule and the same counter below /agent-server and below any deployment (%s)", async (path, method, policy) => {
    const headers = keyed(freshIdentity());
    const spellings = [
      `/agent-server${path}`,
      `/deployments/${ID}${path}`,
      `/deployments/${crypto.randomUUID()}${path}`,
      `/%64eployments/${ID.toUpperCase()}/.${path}`,
      // The agent server's own /deployments, reached through the shared mount: read the same way.
      `/agent-server/deployments/${ID}${path}`,
    ];
    const seen: Array<{ policy: string | null; names: string[]; keys: string[] }> = [];
    for (const spelling of spellings) {
      const limiter = recordingLimiter();
      const res = await gatewayWith({ COUNTERS: limiter.namespace, ...recordingUpstreams().bindings })(spelling, { method, headers });
      expect(res.status, spelling).toBe(200);
      seen.push({ policy: res.headers.get("ratelimit-policy"), names: limiter.calls.names, keys: limiter.calls.keys });
    }
    expect(seen[0]!.policy).toBe(policy);
    expect(seen[0]!.names).toHaveLength(1);
    for (const other of seen.slice(1)) expect(other).toEqual(seen[0]);
  });

  it("one caller's requests below /agent-server and below deployments share one budget: no spelling escapes or counts twice", async () => {
    const ip = freshIdentity().ip;
    const paths = [
      `/agent-server/ok`,
      `/deployments/${ID}/ok`,
      `/%64eployments/${ID}/ok`,
      `/deployments/${crypto.randomUUID()}/./ok`,
      `/x/../deployments/${ID}/ok`,
      `/agent-server/deployments/${ID}/ok`,
    ];
    // Anonymous: the agent server's catch-all, 100 per 60 s per IP (row 203), whatever the spelling.
    let sent = 0;
    const statuses = await burst(100, () => gateway(paths[sent++ % paths.length]!, { headers: { "cf-connecting-ip": ip } }), 20);
    expect(Object.fromEntries(statuses)).not.toHaveProperty("429");
    for (const path of paths) {
      const res = await gateway(path, { headers: { "cf-connecting-ip": ip } });
      expect(res.status, path).toBe(429);
      expect(res.headers.get("ratelimit-policy")).toBe('"agent-server-public-ip";q=100;w=60');
    }
  });
});

describe("deployed: a deployment's agent server on a host of its own (ROUTING=hosts)", () => {
  it("reaches the agent server on its own paths, counted as the shared agent server's; /deployments/<id> there is read as locally", async () => {
    const upstreams = recordingUpstreams();
    const limiter = recordingLimiter();
    const headers = keyed(freshIdentity());
    const send = gatewayWith({ ROUTING: "hosts", UPSTREAM_HOSTS: HOSTS, COUNTERS: limiter.namespace, ...upstreams.bindings });
    const res = await send("https://5b0c3a1e-9f2d-4c8a-8e1b-2a7f6d4c9e01.agents.example.test/threads/search", { method: "POST", headers });
    expect(res.status).toBe(200);
    expect(res.headers.get("ratelimit-policy")).toBe('"agent-server-default-key";q=1000;w=10');
    // An agent server answering below /deployments/<id> (the emulator as the origin) is counted on the rest, once.
    const info = await send("https://agents-sandbox.agents.example.test/%64eployments/x/./info", { headers });
    expect(info.headers.get("ratelimit-policy")).toBe('"agent-server-high-throughput-ip";q=2000;w=10');
    expect(upstreams.reached()).toEqual(["agent-server /threads/search", "agent-server /%64eployments/x/info"]);
  });
});
