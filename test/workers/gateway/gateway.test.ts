// The request path end to end: canonical paths, identity, routing, proxying, failures.
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { identityDigest } from "../../../src/core/rules/identity.ts";
import { counterAddress, OBJECTS_PER_RULE } from "../../../src/core/limiter/index.ts";
import { MAX_CALLS_PER_OBJECT } from "../../../src/gateway/counting.ts";
import { compileClassifier } from "../../../src/core/rules/classify.ts";
import { loadRuleTable } from "../../../src/core/rules/load.ts";
import rules from "../../../rules/hosted-api.json" with { type: "json" };
import type { Env } from "../../../src/env.ts";
import { createWorker } from "../../../src/worker.ts";
import { burst, freshIdentity, gateway, inProcess, keyed } from "../support/requests.ts";
import { gatewayWith, recordingLimiter, recordingUpstream } from "../support/custom-gateway.ts";

const region = env.REGION;
/** The EU environment tells no upstream the client's address (wrangler.toml FORWARD_CLIENT_ADDRESS = "none"). */
const addressTold = region !== "eu";
afterEach(() => {
  vi.restoreAllMocks();
  vi.useRealTimers();
});

describe("canonical paths", () => {
  it("counts every spelling the upstream reads as the path on its rule and forwards it as sent; refuses the others", async () => {
    const who = freshIdentity();
    // The URL parser resolves dot segments before the gateway (and the upstream) see the path.
    const spellings = ["/runs/query", "/runs/x/../query", "/runs%2Fquery", "/%72uns/query", "/a/%2e%2e/runs/query"];
    const upstream = recordingUpstream();
    const limiter = recordingLimiter("allow");
    const send = gatewayWith({ HOSTED_API: upstream.fetcher });
    for (let i = 0; i < 15; i++) {
      const res = await send(spellings[i % spellings.length]!, { method: "POST", headers: keyed(who) });
      expect(res.status).toBe(200);
      expect(res.headers.get("ratelimit-policy")).toContain('"runs-query-key"');
    }
    expect(new Set(upstream.seen.map((r) => new URL(r.url).pathname))).toEqual(new Set(["/runs/query", "/runs%2Fquery", "/%72uns/query"]));
    expect((await send("/runs%2Fquery", { method: "POST", headers: keyed(who) })).status).toBe(429);
    // Starlette routes these as other paths (a 404, a redirect): refused, neither counted nor forwarded.
    const refusing = gatewayWith({ HOSTED_API: upstream.fetcher, COUNTERS: limiter.namespace });
    for (const path of ["//runs/query", "/runs/./query/", "/runs//query/", "/runs/query/", "/runs%2F%2Fquery", "/x%2F..%2Fruns/query"]) {
      const res = await refusing(path, { method: "POST", headers: keyed(who) });
      expect([path, res.status]).toEqual([path, 400]);
      expect(((await res.json()) as { detail: string }).detail).toContain('Send "/runs/query" instead.');
    }
    expect(upstream.seen).toHaveLength(15);
    expect(limiter.calls.hits).toBe(0);
  });

  it("refuses a malformed path with 400 {detail} before any counter or upstream", async () => {
    const upstream = recordingUpstream();
    const limiter = recordingLimiter();
    const send = gatewayWith({ HOSTED_API: upstream.fetcher, COUNTERS: limiter.namespace });
    const res = await send("/runs/%zz", { headers: keyed(freshIdentity()) });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { detail: string };
    expect(body.detail).toMatch(/Malformed request path/);
    expect(upstream.seen).toHaveLength(0);
    expect(limiter.calls.hits).toBe(0);
  });

  it("keeps the query string", async () => {
    const res = await gateway("/anything?a=1&b=%20", { headers: keyed(freshIdentity()) });
    expect(((await res.json()) as { query: string }).query).toBe("?a=1&b=%20");
  });
});

describe("routing, one local port (ROUTING=paths)", () => {
  it.each([
    ["/v2/deployments", "control-plane", "/v2/deployments"],
    ["/v2", "control-plane", "/v2"],
    ["/agent-server/assistants/search", "agent-server", "/assistants/search"],
    ["/agent-server/threads/t-1/runs/stream", "agent-server", "/threads/t-1/runs/stream"],
    ["/agent-server/runs/wait", "agent-server", "/runs/wait"],
    ["/agent-server", "agent-server", "/"],
    // The mount is chosen on the canonical path: no spelling reaches another upstream.
    ["/x/../agent-server/store/items", "agent-server", "/store/items"],
    ["/%61gent-server/info", "agent-server", "/info"],
    ["/agent-server/%2e%2e/runs/wait", "hosted-api", "/runs/wait"],
    // The agent server's paths are the hosted API's at the root: they never reach the agent server.
    ["/runs/wait", "hosted-api", "/runs/wait"],
    ["/assistants/search", "hosted-api", "/assistants/search"],
    ["/agent-serverless", "hosted-api", "/agent-serverless"],
    ["/v2x/y", "hosted-api", "/v2x/y"],
    ["/runs/query", "hosted-api", "/runs/query"],
  ])("%s goes to the %s as %s", async (path, upstream, upstreamPath) => {
    const seen: string[] = [];
    const answer = (name: string) =>
      ({ fetch: async (request: Request) => (seen.push(`${name} ${new URL(request.url).pathname}`), new Response("ok")) }) as unknown as Fetcher;
    const send = gatewayWith({ HOSTED_API: answer("hosted-api"), CONTROL_PLANE: answer("control-plane"), AGENT_SERVER: answer("agent-server") });
    expect((await send(path, { headers: keyed(freshIdentity()) })).status).toBe(200);
    expect(seen).toEqual([`${upstream} ${upstreamPath}`]);
  });
});

describe("proxying", () => {
  it("streams a request body to the upstream and the response back", async () => {
    const chunks = ["first,", "second,", "third"];
    const body = new ReadableStream({
      pull(controller) {
        const next = chunks.shift();
        if (next) controller.enqueue(new TextEncoder().encode(next));
        else controller.close();
      },
    });
    const res = await gateway("/runs", { method: "POST", body, headers: keyed(freshIdentity(), { "content-type": "text/plain" }) });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe("first,second,third");
  });

  it("passes server-sent events through as they are written", async () => {
    const res = await gateway("/feeds/live?events=3", { headers: keyed(freshIdentity(), { accept: "text/event-stream" }) });
    expect(res.headers.get("content-type")).toBe("text/event-stream");
    const reader = res.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    // The first event arrives while the upstream is still writing the others.
    expect(first).toBe('event: tick\ndata: {"n":0}\n\n');
    let rest = "";
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) rest += new TextDecoder().decode(chunk.value);
    expect(rest).toBe('event: tick\ndata: {"n":1}\n\nevent: tick\ndata: {"n":2}\n\n');
  });

  it("tells the upstream the local mount it took off (X-Forwarded-Prefix), never a client's own", async () => {
    const agentServer = recordingUpstream();
    const controlPlane = recordingUpstream();
    const send = gatewayWith({ AGENT_SERVER: agentServer.fetcher, CONTROL_PLANE: controlPlane.fetcher });
    const headers = { ...keyed(freshIdentity()), "x-forwarded-prefix": "/elsewhere" };
    await send("/agent-server/threads/search", { method: "POST", headers, body: "{}" });
    await send("/agent-server/deployments/0b6f0d8e-4a51-4c3e-9a0e-6f1f0e2a9b41/ok", { headers });
    await send("/v2/deployments", { headers });
    expect(agentServer.seen.map((r) => [new URL(r.url).pathname, r.headers.get("x-forwarded-prefix")])).toEqual([
      ["/threads/search", "/agent-server"],
      ["/deployments/0b6f0d8e-4a51-4c3e-9a0e-6f1f0e2a9b41/ok", "/agent-server"],
    ]);
    // Nothing was taken off a control-plane path: no prefix at all, the client's dropped.
    expect(controlPlane.seen.map((r) => r.headers.get("x-forwarded-prefix"))).toEqual([null]);
  });

  it("strips hop-by-hop headers and never passes a client's X-Forwarded-For on (the EU's upstream gets no address at all)", async () => {
    const who = freshIdentity();
    const res = await gateway("/anything", {
      headers: keyed(who, {
        connection: "x-private-hop",
        "x-private-hop": "1",
        "proxy-authorization": "Basic abc",
        "x-forwarded-for": "10.9.9.9",
        "x-user-id": "u",
      }),
    });
    const { headers } = (await res.json()) as { headers: Record<string, string> };
    expect(headers["x-private-hop"]).toBeUndefined();
    expect(headers["proxy-authorization"]).toBeUndefined();
    // The edge's address where the region tells it; in the EU neither the edge's nor the client's.
    const address = addressTold ? who.ip : undefined;
    expect([headers["x-forwarded-for"], headers["x-real-ip"], headers["true-client-ip"]]).toEqual([address, address, address]);
    expect(headers["forwarded"]).toBe(`${addressTold ? `for=${who.ip};` : ""}host=gateway.test;proto=https`);
    expect(headers["x-api-key"]).toBe(who.apiKey); // the upstream still authenticates the caller
  });

  it("answers 502 with a problem body when the upstream is unreachable", async () => {
    const send = gatewayWith({ HOSTED_API: { fetch: () => Promise.reject(new Error("connection refused")) } as unknown as Fetcher });
    const res = await send("/anything", { headers: keyed(freshIdentity()) });
    expect(res.status).toBe(502);
    expect(res.headers.get("content-type")).toBe("application/problem+json");
    // Admitted and counted before the upstream failed: the rate-limit fields are still there.
    expect(res.headers.get("ratelimit-policy")).toBe('"default-key";q=1000;w=10');
    expect(res.headers.get("ratelimit")).toBe('"default-key";r=999;t=10');
    expect(await res.json()).toMatchObject({ status: 502, detail: expect.stringContaining("hosted-api") });
  });

  it("answers 502 for an origin URL nobody listens on", async () => {
    // The refused connection is simulated: a real one makes workerd log an "uncaught exception"
    // of its own even when the gateway handles the failure.
    const refused = vi.spyOn(globalThis, "fetch").mockRejectedValue(new Error("Network connection lost."));
    const send = gatewayWith({ HOSTED_API_ORIGIN: "http://127.0.0.1:9/base" });
    const res = await send("/runs/%7B0b6f0d8e-4a51-4c3e-9a0e-6f1f0e2a9b41%7D?x=1", { headers: keyed(freshIdentity()) });
    expect(res.status).toBe(502);
    expect(await res.json()).toMatchObject({ status: 502, detail: "The hosted-api upstream could not be reached." });
    // The origin's path is kept and the canonical request path appended, query included.
    expect(new Request(refused.mock.calls[0]![0] as RequestInfo).url).toBe("http://127.0.0.1:9/base/runs/%7B0b6f0d8e-4a51-4c3e-9a0e-6f1f0e2a9b41%7D?x=1");
  });

  it("answers 504 with a problem body when the upstream does not answer in time", async () => {
    const send = gatewayWith({ UPSTREAM_TIMEOUT_MS: "50", HOSTED_API: { fetch: () => new Promise(() => {}) } as unknown as Fetcher });
    const res = await send("/anything", { headers: keyed(freshIdentity()) });
    expect(res.status).toBe(504);
    expect(await res.json()).toMatchObject({ status: 504, title: "Upstream timed out" });
  });

  it("ends the upstream call when the client aborts", async () => {
    let upstreamRequest: Request | undefined;
    const send = gatewayWith({
      UPSTREAM_TIMEOUT_MS: "200",
      HOSTED_API: { fetch: (request: Request) => ((upstreamRequest = request), new Promise(() => {})) } as unknown as Fetcher,
    });
    const client = new AbortController();
    const answered = send("/anything", { headers: keyed(freshIdentity()), signal: client.signal });
    await vi.waitFor(() => expect(upstreamRequest).toBeDefined());
    expect(upstreamRequest!.signal.aborted).toBe(false);
    client.abort();
    expect(upstreamRequest!.signal.aborted).toBe(true);
    await answered;
  });

  it("bounds only the wait for response headers: a slower stream after them is not cut", async () => {
    // The upstream's body is the test's: its first chunk comes with the headers, the rest only
    // after the test has moved the gateway's timers past the deadline (fake timers: no race).
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    let body!: ReadableStreamDefaultController<Uint8Array>;
    const stream = new ReadableStream<Uint8Array>({ start: (controller) => void (body = controller) });
    body.enqueue(new TextEncoder().encode("headers came at once,"));
    const send = gatewayWith({ UPSTREAM_TIMEOUT_MS: "50", HOSTED_API: { fetch: async () => new Response(stream) } as unknown as Fetcher });
    const res = await send("/anything", { headers: keyed(freshIdentity()) });
    expect(res.status).toBe(200);
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    expect((await reader.read()).value).toBe("headers came at once,");
    await vi.advanceTimersByTimeAsync(10 * 50);
    body.enqueue(new TextEncoder().encode(" the rest after the timeout"));
    body.close();
    let rest = "";
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) rest += chunk.value;
    expect(rest).toBe(" the rest after the timeout");
  });

  it("never forwards a denied request", async () => {
    const upstream = recordingUpstream();
    const send = gatewayWith({ HOSTED_API: upstream.fetcher });
    const who = freshIdentity();
    const limit = region === "eu" ? 20 : 1;
    for (let i = 0; i < limit + 5; i++) await send("/runs/stats", { headers: keyed(who) });
    expect(upstream.seen).toHaveLength(limit);
  });
});

describe("identity", () => {
  it("keys user rows by user id and client IP: the same user from another IP has its own counter", async () => {
    const who = freshIdentity();
    const other = freshIdentity();
    const send = (ip: string) => gateway("/runs/query", { method: "POST", headers: { "x-user-id": who.userId, "cf-connecting-ip": ip } });
    const statuses = await burst(301, () => send(who.ip));
    expect(Object.fromEntries(statuses)).toEqual({ 200: 300, 429: 1 });
    expect((await send(other.ip)).status).toBe(200);
  });

  it("keys IPv6 clients by their /64", async () => {
    // 5,000 requests: called in this test's context (inProcess), forwarded to an upstream that
    // answers at once (the keying is the subject here, not the forwarding).
    const upstream = { fetch: async () => new Response("ok") } as unknown as Fetcher;
    const app = inProcess(createWorker(), { ...env, HOSTED_API: upstream } as Env);
    const send = (ip: string) => app("/public/download/f", { headers: { "cf-connecting-ip": ip } });
    const limit = 5000;
    const statuses = await burst(limit, () => send("2001:db8:77:1::1"));
    expect(statuses.get(200)).toBe(limit);
    expect((await send("2001:db8:77:1:ffff::2")).status).toBe(429); // same /64
    expect((await send("2001:db8:77:2::1")).status).toBe(200); // next /64
  });

  it("cannot be forged with X-Forwarded-For or X-Real-IP", async () => {
    const who = freshIdentity();
    const send = (forged: string) => gateway("/runs/stats", { headers: keyed(who, { "x-forwarded-for": forged, "x-real-ip": forged }) });
    const limit = region === "eu" ? 20 : 1;
    for (let i = 0; i < limit; i++) expect((await send(`10.0.0.${i}`)).status).toBe(200);
    expect((await send("10.1.1.1")).status).toBe(429);
  });

  it("names counters by region, rule and hashed identity: the raw key never appears in names or logs", async () => {
    const secretKey = `sk-live-${crypto.randomUUID()}`;
    const limiter = recordingLimiter();
    const logs: string[] = [];
    vi.spyOn(console, "log").mockImplementation((line: unknown) => void logs.push(String(line)));
    const send = gatewayWith({ COUNTERS: limiter.namespace });
    const headers = { "x-api-key": secretKey, "cf-connecting-ip": "198.18.0.1" };
    for (let i = 0; i < 17; i++) await send("/runs/query", { method: "POST", headers });
    const digest = identityDigest({ kind: "api-key", apiKey: secretKey }, env.IDENTITY_HMAC_SECRET!);
    // The rule's objects hold counters by digest: the object's name carries the region, the rule
    // and a few bits of the digest, never the key.
    expect(limiter.calls.names[0]).toBe(`${region}:12:objects-${OBJECTS_PER_RULE}:${Number.parseInt(digest.slice(0, 8), 16) % OBJECTS_PER_RULE}`);
    expect(limiter.calls.keys[0]).toBe(digest);
    expect(logs.some((l) => l.includes('"event":"denied"'))).toBe(true);
    for (const text of [...limiter.calls.names, ...limiter.calls.keys, ...logs]) expect(text).not.toContain(secretKey);
  });

  it("keys every digest with the region's secret: another secret, other counters", async () => {
    const limiter = recordingLimiter();
    const other = "another-secret-of-at-least-32-bytes-long";
    const send = gatewayWith({ COUNTERS: limiter.namespace, IDENTITY_HMAC_SECRET: other });
    await send("/anything", { headers: { "x-api-key": "k", "cf-connecting-ip": "198.18.0.2" } });
    expect(limiter.calls.keys).toEqual([identityDigest({ kind: "api-key", apiKey: "k" }, other)]);
    expect(limiter.calls.keys).not.toContain(identityDigest({ kind: "api-key", apiKey: "k" }, env.IDENTITY_HMAC_SECRET!));
  });

  it.each([
    ["not set", undefined, "is not set"],
    ["empty", "", "is not set"],
    ["31 bytes", "x".repeat(31), "is 31 bytes; it must be at least 32"],
  ])("refuses to serve while IDENTITY_HMAC_SECRET is %s: 503 naming the setting, nothing counted or proxied", async (_, secret, why) => {
    const limiter = recordingLimiter();
    const upstream = recordingUpstream();
    const send = gatewayWith({ COUNTERS: limiter.namespace, HOSTED_API: upstream.fetcher, IDENTITY_HMAC_SECRET: secret });
    for (const path of ["/anything", "/runs/stats", "/v2/deployments"]) {
      const res = await send(path, { headers: { "x-api-key": "k", "cf-connecting-ip": "198.18.0.3" } });
      expect(res.status).toBe(503);
      expect(res.headers.get("content-type")).toBe("application/problem+json");
      expect(await res.json()).toMatchObject({ title: "Gateway not ready", status: 503, detail: expect.stringContaining(`IDENTITY_HMAC_SECRET ${why}`) });
    }
    expect(limiter.calls.keys).toEqual([]);
    expect(upstream.seen).toEqual([]);
  });
});

describe("counter policy", () => {
  it("puts counters in the region's Durable Object jurisdiction", async () => {
    const limiter = recordingLimiter();
    const send = gatewayWith({ COUNTERS: limiter.namespace, COUNTER_JURISDICTION: region });
    expect((await send("/anything", { headers: keyed(freshIdentity()) })).status).toBe(200);
    expect(limiter.calls.jurisdictions).toEqual([region]);
  });

  it("refuses a jurisdiction that is not the region's", async () => {
    const send = gatewayWith({ COUNTER_JURISDICTION: region === "eu" ? "us" : "eu" });
    const res = await send("/anything", { headers: keyed(freshIdentity()) });
    expect(res.status).toBe(500);
    expect(((await res.json()) as { detail: string }).detail).toMatch(/COUNTER_JURISDICTION/);
  });

  it("answers a flood from the isolate's deny cache without calling the object", async () => {
    const limiter = recordingLimiter();
    const send = gatewayWith({ COUNTERS: limiter.namespace });
    const who = freshIdentity();
    const statuses = await burst(15 + 1500, () => send("/runs/query", { method: "POST", headers: keyed(who) }), 50);
    expect(Object.fromEntries(statuses)).toEqual({ 200: 15, 429: 1500 });
    // 15 admissions plus the calls already in flight when the first denial came back.
    expect(limiter.calls.hits).toBeLessThanOrEqual(15 + 50);
  });

  it.each(["fail", "hang"] as const)("decides locally when the object %ss, saying so in a header and a log line", async (behaviour) => {
    const logs: string[] = [];
    vi.spyOn(console, "log").mockImplementation((line: unknown) => void logs.push(String(line)));
    const send = gatewayWith({ COUNTERS: recordingLimiter(behaviour).namespace, COUNTER_TIMEOUT_MS: "50" });
    const res = await send("/runs/query", { method: "POST", headers: keyed(freshIdentity()) });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-tollgate-counter")).toBe("local-fallback");
    expect(res.headers.get("ratelimit-policy")).toBe('"runs-query-key";q=15;w=10');
    expect(res.headers.get("ratelimit")).toBe('"runs-query-key";r=14;t=10');
    const failure = logs.map((l) => JSON.parse(l)).find((l) => l.event === "counter_failure");
    expect(failure).toMatchObject({ rule: 12, failMode: "open", decidedBy: "local-fallback" });
    expect(failure.failures).toBeGreaterThan(0);
  });

  it("admits at most count of a 10x burst when the object is overloaded", async () => {
    vi.spyOn(console, "log").mockImplementation(() => {});
    const send = gatewayWith({ COUNTERS: recordingLimiter("fail").namespace });
    const who = freshIdentity();
    const responses: Response[] = [];
    const statuses = await burst(150, async () => {
      const res = await send("/runs/query", { method: "POST", headers: keyed(who) });
      responses.push(res);
      return res;
    });
    expect(Object.fromEntries(statuses)).toEqual({ 200: 15, 429: 135 });
    expect(new Set(responses.map((r) => r.headers.get("x-tollgate-counter")))).toEqual(new Set(["local-fallback"]));
  });

  it("coalesces a burst on one key into a few calls, one in flight at a time, deciding it exactly", async () => {
    const limiter = recordingLimiter();
    const send = gatewayWith({ COUNTERS: limiter.namespace });
    const who = freshIdentity();
    const statuses = await burst(150, () => send("/runs/query", { method: "POST", headers: keyed(who) }), 150);
    expect(Object.fromEntries(statuses)).toEqual({ 200: 15, 429: 135 });
    expect(limiter.calls.maxInFlight).toBe(1);
    // Every request went in some call (none was admitted uncounted), and calls carried several.
    expect(limiter.calls.batches.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(150);
    expect(limiter.calls.hits).toBeLessThan(150);
    expect(Math.max(...limiter.calls.batches)).toBeGreaterThan(1);
  });

  it("decides identities sharing a counter object each exactly, their calls in parallel up to MAX_CALLS_PER_OBJECT (real object)", async () => {
    // Five API keys whose counters on row 12 live in one object (found by the gateway's own naming).
    const objectOf = async (apiKey: string) => counterAddress(env.REGION, 12, identityDigest({ kind: "api-key", apiKey }, env.IDENTITY_HMAC_SECRET!)).object;
    const tag = freshIdentity().apiKey;
    const keys = [`${tag}-0`];
    const shared = await objectOf(keys[0]!);
    for (let i = 1; keys.length < 5; i++) if ((await objectOf(`${tag}-${i}`)) === shared) keys.push(`${tag}-${i}`);
    const limiter = recordingLimiter();
    const send = gatewayWith({ COUNTERS: limiter.namespace, COUNTER_TIMEOUT_MS: "300000" });
    const responses = await Promise.all(
      Array.from({ length: 150 }, (_, i) => keys[i % keys.length]!).map(async (apiKey) => ({
        apiKey,
        res: await send("/runs/query", { method: "POST", headers: { "x-api-key": apiKey } }),
      })),
    );
    for (const apiKey of keys) {
      const own = responses.filter((r) => r.apiKey === apiKey).map((r) => r.res);
      expect(own.filter((r) => r.status === 200)).toHaveLength(15);
      expect(own.filter((r) => r.status === 429)).toHaveLength(15);
    }
    expect(new Set(limiter.calls.names)).toEqual(new Set([shared]));
    expect(limiter.calls.maxInFlight).toBeGreaterThan(1);
    expect(limiter.calls.maxInFlight).toBeLessThanOrEqual(MAX_CALLS_PER_OBJECT);
    // Nothing fell back to a local window: every answer is the object's.
    expect(responses.filter((r) => r.res.headers.has("x-tollgate-counter"))).toEqual([]);
  });

  it("stays exact under a 10x burst on an object that refuses concurrent calls (overloaded)", async () => {
    vi.spyOn(console, "log").mockImplementation(() => {});
    const limiter = recordingLimiter("overloaded");
    const send = gatewayWith({ COUNTERS: limiter.namespace });
    const who = freshIdentity();
    const responses = await Promise.all(Array.from({ length: 150 }, () => send("/runs/query", { method: "POST", headers: keyed(who) })));
    expect(responses.filter((r) => r.status === 200)).toHaveLength(15);
    // Coalesced, the object never saw two calls at once: nothing fell back to a local window.
    expect(responses.filter((r) => r.headers.has("x-tollgate-counter"))).toEqual([]);
  });

  it("hands the admissions it made alone to the object once it answers again", async () => {
    vi.spyOn(console, "log").mockImplementation(() => {});
    const limiter = recordingLimiter("real", 10);
    const send = gatewayWith({ COUNTERS: limiter.namespace });
    const who = freshIdentity();
    // Ten calls fail: ten local admissions. Then the object answers, told of those ten, and admits
    // only what is left of 15 in the window.
    const statuses = await burst(30, () => send("/runs/query", { method: "POST", headers: keyed(who) }), 1);
    expect(Object.fromEntries(statuses)).toEqual({ 200: 15, 429: 15 });
    expect(limiter.calls.recorded[10]).toHaveLength(10);
    expect(limiter.calls.recorded.slice(11).every((r) => r.length === 0)).toBe(true);
  });

  it("fails closed with 503 and a problem body when configured to", async () => {
    vi.spyOn(console, "log").mockImplementation(() => {});
    const send = gatewayWith({ COUNTERS: recordingLimiter("fail").namespace, FAIL_MODE: "closed" });
    const res = await send("/runs/query", { method: "POST", headers: keyed(freshIdentity()) });
    expect(res.status).toBe(503);
    expect(res.headers.get("content-type")).toBe("application/problem+json");
    expect(await res.json()).toMatchObject({ status: 503, detail: expect.stringContaining("runs-query-key") });
  });

  it("counts and reports a shadow rule but never denies", async () => {
    const table = structuredClone(rules);
    table.rules[11]!.mode = "shadow";
    const send = gatewayWith({}, compileClassifier(loadRuleTable(table)));
    const who = freshIdentity();
    const statuses = await burst(20, () => send("/runs/query", { method: "POST", headers: keyed(who) }));
    expect(Object.fromEntries(statuses)).toEqual({ 200: 20 });
    const res = await send("/runs/query", { method: "POST", headers: keyed(who) });
    expect(res.status).toBe(200);
    expect(res.headers.get("ratelimit")).toMatch(/^"runs-query-key";r=0;t=\d+$/);
  });
});
