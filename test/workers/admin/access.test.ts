// Who reaches the admin API on its host, and how: off (404) without a token, 401 without or with a
// wrong one, health for anyone and never counted, the whole /_tollgate/ prefix kept from the
// upstreams. Which hosts it answers on: hosts.test.ts; the throttle: throttle.test.ts.
import { afterEach, describe, expect, it } from "vitest";
import { burst, freshIdentity } from "../support/requests.ts";
import { gatewayWith, recordingLimiter, recordingUpstream } from "../support/custom-gateway.ts";
import { ADMIN_HOST, admin, adminGateway, adminUrl, resetAdminState, TOKEN } from "./support.ts";

afterEach(() => resetAdminState());

describe("the admin API's door", () => {
  it("answers 404 everywhere but health when no ADMIN_TOKEN is configured", async () => {
    const send = gatewayWith({});
    for (const path of ["/rules", "/overrides", "/metrics", "/dashboard", "/nothing-here"]) {
      const res = await admin(send, "GET", path);
      expect(res.status, path).toBe(404);
      expect(res.headers.get("www-authenticate")).toBeNull();
    }
    expect((await admin(send, "GET", "/health", { token: null })).status).toBe(200);
  });

  it("is on the admin host (ADMIN_HOSTS) of the tests' gateways, as of npm start", () => {
    expect(ADMIN_HOST).toBe("admin.localhost");
  });

  it.each([
    ["no Authorization header", {}],
    ["a wrong bearer token", { authorization: "Bearer not-the-admin-token-0123" }],
    ["the token with one character changed", { authorization: `Bearer ${TOKEN.slice(0, -1)}x` }],
    ["the token as a prefix", { authorization: `Bearer ${TOKEN}x` }],
    ["another scheme", { authorization: `Token ${TOKEN}` }],
    ["Basic with a wrong password", { authorization: `Basic ${btoa("admin:wrong-password-0123456")}` }],
  ])("refuses %s with a 401 problem", async (_, headers) => {
    const send = adminGateway();
    for (const [method, path] of [
      ["GET", "/rules"],
      ["GET", "/overrides"],
      ["POST", "/overrides"],
      ["GET", "/dashboard"],
      ["GET", "/unknown"],
    ] as const) {
      const res = await admin(send, method, path, { token: null, headers });
      expect(res.status, `${method} ${path}`).toBe(401);
      expect(res.headers.get("content-type")).toBe("application/problem+json");
      expect(res.headers.get("www-authenticate")).toContain("Bearer");
      expect(await res.json()).toMatchObject({ status: 401, title: "Unauthorized" });
    }
  });

  it("admits the token as a bearer, and as a browser's Basic password (the dashboard)", async () => {
    const send = adminGateway();
    expect((await admin(send, "GET", "/rules")).status).toBe(200);
    expect((await admin(send, "GET", "/rules", { token: null, headers: { authorization: `Basic ${btoa(`anyone:${TOKEN}`)}` } })).status).toBe(200);
  });

  it("refuses a change sent from another site (a browser's remembered login is no licence)", async () => {
    const send = adminGateway();
    const body = { rule: 12, mode: "shadow", reason: "cross-site" };
    const res = await admin(send, "POST", "/overrides", { body, headers: { origin: "https://evil.example", "sec-fetch-site": "cross-site" } });
    expect(res.status).toBe(403);
    expect((await admin(send, "GET", "/overrides").then((r) => r.json())) as { overrides: unknown[] }).toMatchObject({ overrides: [] });
  });

  it("treats a too-short token as a misconfiguration of the admin API only, without showing it", async () => {
    const send = gatewayWith({ ADMIN_TOKEN: "short" });
    const res = await admin(send, "GET", "/rules", { token: "short" });
    expect(res.status).toBe(500);
    const { detail } = (await res.json()) as { detail: string };
    expect(detail).toMatch(/admin token "admin" is shorter than 16 characters/);
    expect(detail).not.toContain('"short"');
    // Traffic keeps flowing, and health says so.
    expect((await send("/anything", { headers: { "cf-connecting-ip": freshIdentity().ip } })).status).toBe(200);
    expect((await send(adminUrl("/health"), {})).status).toBe(200);
  });

  it("keeps the whole /_tollgate/ prefix: an unknown path there is a 404, never forwarded or counted", async () => {
    const upstream = recordingUpstream();
    const limiter = recordingLimiter();
    const send = adminGateway({ HOSTED_API: upstream.fetcher, COUNTERS: limiter.namespace });
    for (const path of ["/_tollgate/nope", "/_tollgate", "/_tollgate/health/x"]) {
      for (const host of [ADMIN_HOST, "gateway.test"]) {
        const res = await send(`https://${host}${path}`, { headers: { authorization: `Bearer ${TOKEN}` } });
        expect(res.status, `${host}${path}`).toBe(404);
      }
    }
    expect(upstream.seen).toHaveLength(0);
    expect(limiter.calls.hits).toBe(0);
  });

  it("takes the prefix in every spelling that canonicalises into it, and nothing merely starting like it", async () => {
    const upstream = recordingUpstream();
    const send = adminGateway({ HOSTED_API: upstream.fetcher });
    // `%2F` included: the upstream decodes it to `/` (issue 32, finding 5; test/workers/gateway/reserved-paths.test.ts).
    for (const path of ["/%5Ftollgate/health", "/_toll%67ate/health", "/_tollgate/health?x=1", "/_tollgate/", "/_tollgate%2Fhealth"]) {
      for (const host of [ADMIN_HOST, "gateway.test"]) {
        const res = await send(`https://${host}${path}`, { headers: { authorization: `Bearer ${TOKEN}` } });
        expect(res.headers.has("ratelimit"), `${host}${path}`).toBe(false);
      }
    }
    // Health answers in every spelling on the admin host.
    expect((await send(`https://${ADMIN_HOST}/%5Ftollgate/health`, {})).status).toBe(200);
    expect(upstream.seen).toHaveLength(0);
    // Another path that starts with the prefix's letters is an upstream's, counted.
    for (const path of ["/_tollgatex", "/_Tollgate/health"]) {
      const res = await send(path, { headers: { "cf-connecting-ip": freshIdentity().ip } });
      expect(res.headers.has("ratelimit"), path).toBe(true);
    }
    expect(upstream.seen).toHaveLength(2);
  });
});

describe("GET /_tollgate/health", () => {
  it("is never counted: more probes than row 29 allows one IP, then that IP's counter is untouched", async () => {
    const limiter = recordingLimiter();
    const send = adminGateway({ COUNTERS: limiter.namespace });
    const ip = freshIdentity().ip;
    const statuses = await burst(150, () => send(adminUrl("/health"), { headers: { "cf-connecting-ip": ip } }), 50);
    expect(Object.fromEntries(statuses)).toEqual({ 200: 150 });
    expect(limiter.calls.hits).toBe(0);
    // The IP's catch-all counter (100/60) starts from full.
    const res = await send("/anything", { headers: { "cf-connecting-ip": ip } });
    expect(res.headers.get("ratelimit")).toBe('"public-ip";r=99;t=60');
  });

  it("says only whether the gateway can serve: no version, region, rules or headers about limits", async () => {
    const res = await adminGateway()(adminUrl("/health"), {});
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('{"status":"ok"}');
    expect(res.headers.get("ratelimit")).toBeNull();
    expect(res.headers.get("ratelimit-policy")).toBeNull();
    expect(res.headers.get("cache-control")).toBe("no-store");
  });

  it("answers 503 naming the setting when the gateway is misconfigured, so a balancer (and the deploy's probe) stops", async () => {
    const res = await gatewayWith({ HOSTED_API_ORIGIN: "" })(adminUrl("/health"), {});
    expect(res.status).toBe(503);
    const body = (await res.json()) as Record<string, string>;
    expect(Object.keys(body).sort()).toEqual(["detail", "status"]);
    expect(body).toMatchObject({ status: "unavailable", detail: expect.stringContaining("HOSTED_API_ORIGIN") });
  });
});
