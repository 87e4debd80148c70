// Issue 8, "No way around a limit": each way a client escaped a limit, tried through the gateway.
// Every case exhausts a row first, then tries the evasion, which must be counted on the same row
// (429) or refused (400) before any counter or upstream.
import { env } from "cloudflare:workers";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { Region } from "../../../src/core/rules/schema.ts";
import { burst, freshIdentity, gateway, keyed } from "../support/requests.ts";
import { gatewayWith, recordingLimiter, recordingUpstream } from "../support/custom-gateway.ts";
import { nestedJson } from "../../support/nested-json.ts";
import { publishedRow } from "../../support/rows.ts";

const region = env.REGION as Region;
/** The EU environment tells no upstream the client's address (wrangler.toml FORWARD_CLIENT_ADDRESS = "none"). */
const addressTold = region !== "eu";
const limitOf = (id: number) => publishedRow(id).limits[region];
const RUN = "67e55044-10b1-426f-9247-bb680e5fe0c8";

// The clock stands still while a row is exhausted, so a slow machine cannot let a window expire
// between the burst and the evasion.
beforeAll(() => {
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(new Date("2026-11-23T12:00:00Z"));
});
afterAll(() => vi.useRealTimers());

/** Sends `count` requests as `who` so that row `id` is exhausted; checks they were all admitted on it. */
async function exhaust(id: number, method: string, path: string, headers: Record<string, string>) {
  const statuses = await burst(limitOf(id).count, () => gateway(path, { method, headers }));
  expect(Object.fromEntries(statuses)).toEqual({ 200: limitOf(id).count });
  const denied = await gateway(path, { method, headers });
  expect(denied.status).toBe(429);
}

/** The row a response was counted on, from its RateLimit-Policy name. */
const ruleNameOf = (res: Response) => /^"([^"]+)"/.exec(res.headers.get("ratelimit-policy") ?? "")?.[1];

describe("repeated identity headers", () => {
  it.each(["x-api-key", "x-user-id"])("refuses %s sent twice with 400 naming it, before any counter or upstream", async (name) => {
    const who = freshIdentity();
    const first = name === "x-api-key" ? who.apiKey : who.userId;
    const identity = name === "x-api-key" ? keyed(who) : { "x-user-id": who.userId, "cf-connecting-ip": who.ip };
    // Exhausted first on row 28 (key) or 26 (user), as the attacker would.
    if (name === "x-api-key") await exhaust(28, "GET", "/runs/stats", identity);

    const upstream = recordingUpstream();
    const limiter = recordingLimiter();
    const send = gatewayWith({ HOSTED_API: upstream.fetcher, COUNTERS: limiter.namespace });
    for (const second of ["anything", "other", first]) {
      const headers = new Headers({ "cf-connecting-ip": who.ip });
      headers.append(name, first);
      headers.append(name, second);
      const res = await send("/runs/stats", { headers });
      expect(res.status).toBe(400);
      expect(((await res.json()) as { detail: string }).detail).toContain(`Header ${name} must be sent once`);
    }
    const comma = await send("/runs/stats", { headers: { "cf-connecting-ip": who.ip, [name]: `${first},x` } });
    expect(comma.status).toBe(400);
    expect(upstream.seen).toHaveLength(0);
    expect(limiter.calls.hits).toBe(0);
  });
});

describe("other spellings of a run id", () => {
  const spellings = [RUN.replaceAll("-", ""), RUN.toUpperCase(), `{${RUN}}`, `%7B${RUN}%7D`, `urn:uuid:${RUN}`, `urn%3Auuid%3A${RUN.toUpperCase()}`];

  it("counts every spelling pydantic accepts on row 23, under either root, once it is exhausted", async () => {
    const who = freshIdentity();
    await exhaust(23, "GET", `/runs/${RUN}`, keyed(who));
    for (const root of ["", "/api/v1"]) {
      for (const spelling of spellings) {
        const res = await gateway(`${root}/runs/${spelling}`, { headers: keyed(who) });
        expect([`${root}/runs/${spelling}`, res.status, ruleNameOf(res)]).toEqual([`${root}/runs/${spelling}`, 429, "run-lookup-key"]);
      }
    }
  });

  it("forwards each spelling as sent: pydantic reads every one as the run counted", async () => {
    const upstream = recordingUpstream();
    const send = gatewayWith({ HOSTED_API: upstream.fetcher });
    for (const spelling of spellings) {
      expect((await send(`/api/v1/runs/${spelling}`, { headers: keyed(freshIdentity()) })).status).toBe(200);
    }
    // As the URL parser serializes them (braces percent-encoded), nothing rewritten.
    const sent = spellings.map((spelling) => new URL(`https://gateway.test/api/v1/runs/${spelling}`).pathname);
    expect(upstream.seen.map((r) => new URL(r.url).pathname)).toEqual(sent);
  });
});

describe("spellings of a path the upstream would route as another path", () => {
  // Counted on the rule of the canonical path, each would reach a 404, a redirect or (on the JS
  // agent server, which keeps %2F inside a segment) another route: refused before anything counts.
  it.each([
    ["hosted API", "/runs/stats/", "/runs/stats"],
    ["hosted API", "//runs/stats", "/runs/stats"],
    ["hosted API", "/runs%2Fstats%2F", "/runs/stats"],
    ["hosted API", "/runs%2F.%2Fstats", "/runs/stats"],
    ["agent server", "/agent-server/info/", "/agent-server/info"],
    ["agent server", "/agent-server//info", "/agent-server/info"],
    ["agent server", "/agent-server/threads%2Fsearch", undefined],
    ["agent server", "/agent-server/assistants/echo%2Fgraph", undefined],
    ["agent server", `/deployments/${RUN}%2Finfo`, undefined],
  ])("the %s: %s is refused 400, naming what to send, before any counter or upstream", async (_upstream, path, instead) => {
    const upstreams = recordingUpstream();
    const limiter = recordingLimiter();
    const send = gatewayWith({ HOSTED_API: upstreams.fetcher, AGENT_SERVER: upstreams.fetcher, COUNTERS: limiter.namespace });
    const res = await send(path, { method: "POST", headers: keyed(freshIdentity()) });
    expect(res.status).toBe(400);
    const { detail } = (await res.json()) as { detail: string };
    expect(detail).toContain(instead ? `Send "${instead}" instead.` : "encoded slash (%2F)");
    expect(upstreams.seen).toHaveLength(0);
    expect(limiter.calls.hits).toBe(0);
  });

  it("refuses them once a row is exhausted too: never counted on the row, never forwarded", async () => {
    const who = freshIdentity();
    await exhaust(28, "GET", "/runs/stats", keyed(who));
    for (const path of ["/runs/stats/", "//runs/stats", "/api/v1/runs/stats/", "/runs%2F%2Fstats"]) {
      expect([path, (await gateway(path, { headers: keyed(who) })).status]).toEqual([path, 400]);
    }
    // The spellings the upstream reads as the path are counted on it.
    for (const path of ["/runs%2Fstats", "/%72uns/stats", "/api%2Fv1/runs/stats"]) {
      const res = await gateway(path, { headers: keyed(who) });
      expect([path, res.status, ruleNameOf(res)]).toEqual([path, 429, "runs-stats-key"]);
    }
  });
});

describe("the /api/v1 root", () => {
  it.each([
    [12, "POST", "/runs/query"],
    [28, "GET", "/runs/stats"],
    [5, "GET", "/repos/owner/repo"],
  ])("row %i counts %s %s and its /api/v1 spelling on one counter", async (id, method, path) => {
    const who = freshIdentity();
    await exhaust(id, method, path, keyed(who));
    const res = await gateway(`/api/v1${path}`, { method, headers: keyed(who) });
    expect(res.status).toBe(429);
    expect(((await res.json()) as { detail: string }).detail).toContain(`under /api/v1`);
  });

  it("and the other way round", async () => {
    const who = freshIdentity();
    await exhaust(12, "POST", "/api/v1/runs/query", keyed(who));
    expect((await gateway("/runs/query", { method: "POST", headers: keyed(who) })).status).toBe(429);
  });
});

describe("headers that change the request behind the gateway's back", () => {
  it.each(["X-HTTP-Method-Override", "X-HTTP-Method", "X-Method-Override"])("refuses %s with 400 before any counter or upstream", async (name) => {
    const upstream = recordingUpstream();
    const limiter = recordingLimiter();
    const send = gatewayWith({ HOSTED_API: upstream.fetcher, COUNTERS: limiter.namespace });
    const res = await send("/runs/query", { headers: { ...keyed(freshIdentity()), [name]: "POST" } });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { detail: string }).detail).toContain(`Header ${name.toLowerCase()} is not accepted`);
    expect(upstream.seen).toHaveLength(0);
    expect(limiter.calls.hits).toBe(0);
  });

  it("rebuilds every client-address header from CF-Connecting-IP and drops the client's (in the EU, sends none)", async () => {
    const upstream = recordingUpstream();
    const send = gatewayWith({ HOSTED_API: upstream.fetcher });
    const who = freshIdentity();
    await send("/anything", {
      headers: {
        ...keyed(who),
        forwarded: "for=10.0.0.1;proto=https",
        "x-real-ip": "10.0.0.2",
        "true-client-ip": "10.0.0.3",
        "x-client-ip": "10.0.0.4",
        "x-forwarded-for": "10.0.0.5",
        "x-original-url": "/runs/query",
        "x-forwarded-prefix": "/admin",
      },
    });
    const seen = upstream.seen[0]!.headers;
    const address = addressTold ? who.ip : null;
    expect(seen.get("x-forwarded-for")).toBe(address);
    expect(seen.get("x-real-ip")).toBe(address);
    expect(seen.get("true-client-ip")).toBe(address);
    expect(seen.get("forwarded")).toBe(`${addressTold ? `for=${who.ip};` : ""}host=gateway.test;proto=https`);
    expect(seen.get("x-client-ip")).toBeNull();
    expect(seen.get("x-original-url")).toBeNull();
    expect(seen.get("x-forwarded-prefix")).toBeNull();
  });

  it("tells the hosted API the client's address when FORWARD_CLIENT_ADDRESS lists it, in the EU too, and no upstream it leaves out", async () => {
    const hostedApi = recordingUpstream();
    const controlPlane = recordingUpstream();
    const send = gatewayWith({ FORWARD_CLIENT_ADDRESS: "hosted-api", HOSTED_API: hostedApi.fetcher, CONTROL_PLANE: controlPlane.fetcher });
    const who = freshIdentity();
    const clientSent = { "x-forwarded-for": "10.0.0.5", "x-real-ip": "10.0.0.2" };
    await send("/anything", { headers: keyed(who, clientSent) });
    await send("/v2/deployments", { headers: keyed(who, clientSent) });
    const told = hostedApi.seen[0]!.headers;
    expect([told.get("x-forwarded-for"), told.get("x-real-ip"), told.get("true-client-ip")]).toEqual([who.ip, who.ip, who.ip]);
    expect(told.get("forwarded")).toBe(`for=${who.ip};host=gateway.test;proto=https`);
    const untold = controlPlane.seen[0]!.headers;
    expect([untold.get("x-forwarded-for"), untold.get("x-real-ip"), untold.get("true-client-ip")]).toEqual([null, null, null]);
    expect(untold.get("forwarded")).toBe("host=gateway.test;proto=https");
  });

  it("quotes an IPv6 client in Forwarded and sends no address when the edge gave none", async () => {
    const upstream = recordingUpstream();
    // The address's format, wherever it is told: listed, so the EU tells it too.
    const send = gatewayWith({ FORWARD_CLIENT_ADDRESS: "hosted-api", HOSTED_API: upstream.fetcher });
    await send("/anything", { headers: { "x-api-key": freshIdentity().apiKey, "cf-connecting-ip": "2001:db8::7" } });
    await send("/anything", { headers: { "x-api-key": freshIdentity().apiKey, "x-real-ip": "10.0.0.2", forwarded: "for=10.0.0.1" } });
    expect(upstream.seen[0]!.headers.get("forwarded")).toBe(`for="[2001:db8::7]";host=gateway.test;proto=https`);
    const anonymous = upstream.seen[1]!.headers;
    expect(anonymous.get("forwarded")).toBe("host=gateway.test;proto=https");
    expect(anonymous.get("x-real-ip")).toBeNull();
    expect(anonymous.get("x-forwarded-for")).toBeNull();
  });

  it("drops header names holding an underscore, which CGI-style stacks read as dashes", async () => {
    const upstream = recordingUpstream();
    const send = gatewayWith({ HOSTED_API: upstream.fetcher });
    const who = freshIdentity();
    await send("/runs/stats", { headers: { ...keyed(who), x_api_key: "someone-else", x_user_id: "u", "x-trace_id": "t" } });
    const names = [...upstream.seen[0]!.headers.keys()];
    expect(names.filter((n) => n.includes("_"))).toEqual([]);
    expect(upstream.seen[0]!.headers.get("x-api-key")).toBe(who.apiKey);
  });
});

describe("bodies nested about 5,000 levels deep", () => {
  it.each([
    ["/agent-server/assistants", "metadata", { graph_id: "agent" }],
    ["/agent-server/assistants", "context", { graph_id: "agent" }],
    ["/agent-server/assistants", "config", { graph_id: "agent" }],
    ["/agent-server/threads", "metadata", {}],
    ["/agent-server/assistants/search", "metadata", {}],
  ])("POST %s with %s nested 5,000 deep answers FastAPI's 400, not a 500", async (path, field, fields) => {
    const body = `${JSON.stringify(fields).slice(0, -1)}${Object.keys(fields).length ? "," : ""}"${field}":${nestedJson(5000)}}`;
    const res = await gateway(path, { method: "POST", body, headers: { ...keyed(freshIdentity()), "content-type": "application/json" } });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ detail: "There was an error parsing the body" });
  });
});

describe("errors the gateway raises itself", () => {
  it("answers an invalid Connection header with 400 {detail}, not plain text", async () => {
    const res = await gateway("/anything", { headers: { ...keyed(freshIdentity()), connection: "text/event-stream" } });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { detail: string }).detail).toContain("Connection");
  });
});

describe("production refuses to guess its upstreams", () => {
  it.each(["HOSTED_API_ORIGIN", "CONTROL_PLANE_ORIGIN", "AGENT_SERVER_ORIGIN"] as const)(
    "answers 500 gateway misconfigured on every request when %s is missing, and logs it once",
    async (variable) => {
      const log = vi.spyOn(console, "log").mockImplementation(() => {});
      try {
        const send = gatewayWith({ [variable]: "" });
        for (const path of ["/runs/query", "/v2/deployments", "/agent-server/assistants/search", "/runs/%zz"]) {
          const res = await send(path, { headers: keyed(freshIdentity()) });
          expect(res.status).toBe(500);
          const detail = ((await res.json()) as { detail: string }).detail;
          expect(detail).toMatch(new RegExp(`^gateway misconfigured: ${variable} is not set`));
        }
        const lines = log.mock.calls.map(([line]) => String(line)).filter((line) => line.includes("gateway_misconfigured"));
        expect(lines).toHaveLength(1);
      } finally {
        log.mockRestore();
      }
    },
  );

  it("refuses an origin that is not an http(s) URL", async () => {
    const res = await gatewayWith({ HOSTED_API_ORIGIN: "ftp://example.com" })("/anything");
    expect(res.status).toBe(500);
    expect(((await res.json()) as { detail: string }).detail).toContain("HOSTED_API_ORIGIN must be an http(s) URL");
  });
});
