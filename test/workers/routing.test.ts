// Each upstream on its own address (issue 11 part 1) and each counted by its own table (part 2).
import { afterEach, describe, expect, it, vi } from "vitest";
import { burst, freshIdentity, gateway } from "./support/requests.ts";
import { OBJECTS_PER_RULE } from "../../src/limiter/index.ts";
import { gatewayWith, recordingLimiter } from "./support/custom-gateway.ts";

afterEach(() => vi.restoreAllMocks());

const HOSTS = "api.example.test=hosted-api, control.example.test=control-plane, *.agents.example.test=agent-server";

/** Upstreams that record which of them answered, and the path each received. */
function recordingUpstreams() {
  const seen: string[] = [];
  const answer = (name: string) =>
    ({ fetch: async (request: Request) => (seen.push(`${name} ${new URL(request.url).pathname}`), new Response("ok")) }) as unknown as Fetcher;
  return { seen, bindings: { HOSTED_API: answer("hosted-api"), CONTROL_PLANE: answer("control-plane"), AGENT_SERVER: answer("agent-server") } };
}

const keyed = () => {
  const who = freshIdentity();
  return { "x-api-key": who.apiKey, "cf-connecting-ip": who.ip };
};

// Paths each upstream documents; the agent server's collide with the hosted API's.
const DOCUMENTED = ["/runs/wait", "/runs/batch", "/runs", "/info", "/ok", "/metrics", "/store/items", "/assistants/search", "/threads", "/v2/deployments", "/runs/query", "/auth/login"];

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
      const res = await send(`${origin}${path}`, { method: "POST", headers: keyed() });
      expect(res.status, path).toBe(200);
    }
    expect(upstreams.seen).toEqual(DOCUMENTED.map((path) => `${upstream} ${path}`));
  });

  it.each(["https://gateway.test", "https://agents.example.test", "https://example.test", "https://api.example.test.evil.test"])(
    "refuses a host it does not serve (%s) with 421, before any counter or upstream",
    async (origin) => {
      const upstreams = recordingUpstreams();
      const limiter = recordingLimiter();
      const send = gatewayWith({ ROUTING: "hosts", UPSTREAM_HOSTS: HOSTS, LIMITER: limiter.namespace, ...upstreams.bindings });
      const res = await send(`${origin}/runs/query`, { method: "POST", headers: keyed() });
      expect(res.status).toBe(421);
      expect(res.headers.get("content-type")).toBe("application/problem+json");
      expect(await res.json()).toMatchObject({ status: 421, detail: `This gateway does not serve the host ${new URL(origin).hostname}.` });
      expect(upstreams.seen).toEqual([]);
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
    const res = await gatewayWith({ ROUTING: "hosts", UPSTREAM_HOSTS: hosts })("https://a.test/runs/query", { headers: keyed() });
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
    const res = await gatewayWith({ LIMITER: limiter.namespace, ...upstreams.bindings })(path, { method, headers: keyed() });
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
