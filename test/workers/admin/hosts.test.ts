// Which hosts the admin API answers on (ADMIN_HOSTS, docs/admin.md "Hosts"): its own only, in
// every spelling of their names, and nowhere else in any; an admin host serves nothing else; a
// configuration that would give the dashboard an upstream's origin is refused.
import { afterEach, describe, expect, it, vi } from "vitest";
import { adminDoor, canonicalHost, hostnameOf, parseAdminHosts } from "../../../src/admin/hosts.ts";
import type { Env } from "../../../src/env.ts";
import { gatewayWith, recordingLimiter, recordingUpstream } from "../support/custom-gateway.ts";
import { freshIdentity } from "../support/requests.ts";
import { ADMIN_HOST, admin, adminGateway, adminUrl, resetAdminState, TOKEN } from "./support.ts";

afterEach(() => resetAdminState());

/** A deployed configuration: routing by host, one admin host of its own. */
const DEPLOYED: Partial<Env> = {
  ADMIN_TOKEN: TOKEN,
  ROUTING: "hosts",
  UPSTREAM_HOSTS: "api.example.com=hosted-api, control.example.com=control-plane, *.agents.example.com=agent-server",
  ADMIN_HOSTS: "tollgate-admin.example.com",
};

const bearer = { authorization: `Bearer ${TOKEN}` };
const basic = { authorization: `Basic ${btoa(`anyone:${TOKEN}`)}`, accept: "text/html" };

describe("ADMIN_HOSTS", () => {
  it("is parsed as exact host names: case, surrounding space and a trailing dot do not matter", () => {
    expect(parseAdminHosts(" Tollgate-Admin.Example.com. , admin.localhost")).toEqual(["tollgate-admin.example.com", "admin.localhost"]);
    expect(parseAdminHosts(undefined)).toEqual([]);
    expect(parseAdminHosts(" , ")).toEqual([]);
  });

  it.each([
    ["https://admin.example.com", /entry 1 is not a host name/],
    ["admin.example.com, *.example.com", /entry 2 is not a host name/],
    ["admin.example.com:8443", /entry 1 is not a host name/],
    ["admin.example.com/_tollgate", /entry 1 is not a host name/],
    ["admin.example.com, ADMIN.example.com.", /admin\.example\.com is listed twice/],
  ])("refuses %s", (text, why) => {
    expect(() => parseAdminHosts(text)).toThrow(why);
  });

  it("reads a request's host name as routing does: port, case and trailing dot removed", () => {
    for (const url of [
      "https://admin.localhost/x",
      "https://admin.localhost:8787/x",
      "http://ADMIN.localhost./_tollgate",
      "https://admin.localhost.:443/",
      "https://admin.localhost",
    ]) {
      expect(hostnameOf(new Request(url).url), url).toBe("admin.localhost");
    }
    expect(hostnameOf("http://[::1]:8787/x")).toBe("[::1]");
    expect(hostnameOf("https://admin.localhost.evil.test/x")).toBe("admin.localhost.evil.test");
    expect(canonicalHost("Admin.Localhost.")).toBe("admin.localhost");
  });
});

describe("the admin API on its hosts only", () => {
  it("answers on the admin host, and 404 in the API's shape on every upstream host, forwarding and counting nothing", async () => {
    const upstream = recordingUpstream();
    const limiter = recordingLimiter();
    const send = gatewayWith({ ...DEPLOYED, HOSTED_API: upstream.fetcher, COUNTERS: limiter.namespace });
    expect((await send("https://tollgate-admin.example.com/_tollgate/rules", { headers: bearer })).status).toBe(200);
    for (const host of ["api.example.com", "control.example.com", "x.agents.example.com", "unserved.example.net"]) {
      for (const path of ["/_tollgate/rules", "/_tollgate/health", "/_tollgate/metrics", "/_tollgate/overrides"]) {
        const res = await send(`https://${host}${path}`, { headers: bearer });
        expect(res.status, `${host}${path}`).toBe(404);
        expect(res.headers.get("content-type")).toBe("application/problem+json");
        expect(await res.json()).toMatchObject({ status: 404, detail: "Not Found" });
      }
    }
    expect(upstream.seen).toHaveLength(0);
    expect(limiter.calls.hits).toBe(0);
  });

  it("takes every spelling of the admin host's name, and no other name however alike", async () => {
    const send = gatewayWith(DEPLOYED);
    for (const host of [
      "tollgate-admin.example.com",
      "TOLLGATE-ADMIN.Example.COM",
      "tollgate-admin.example.com.",
      "tollgate-admin.example.com:8443",
      "tollgate-admin.example.com.:443",
    ]) {
      expect((await send(`https://${host}/_tollgate/rules`, { headers: bearer })).status, host).toBe(200);
    }
    for (const host of [
      "tollgate-admin.example.com.api.example.com",
      "x.tollgate-admin.example.com",
      "tollgate-admin.example.co",
      "tollgate-admin-example.com",
      "xn--tollgate-admn-xyz.example.com",
      "tollgate-admin.example.com..",
    ]) {
      const res = await send(`https://${host}/_tollgate/rules`, { headers: bearer }).catch(() => undefined);
      // A name the URL parser refuses never reaches the gateway at all.
      if (res) expect(res.status, host).toBe(404);
    }
  });

  it("is not reached by naming the admin host in a header on an upstream host", async () => {
    const send = gatewayWith(DEPLOYED);
    const spellings: Record<string, string>[] = [
      { "x-forwarded-host": "tollgate-admin.example.com" },
      { forwarded: "host=tollgate-admin.example.com" },
      { "x-original-host": "tollgate-admin.example.com" },
      // The runtime builds the URL from Host; a Request whose header disagrees with its URL is routed by the URL.
      { host: "tollgate-admin.example.com" },
    ];
    for (const headers of spellings) {
      const res = await send("https://api.example.com/_tollgate/rules", { headers: { ...bearer, ...headers } });
      expect(res.status, JSON.stringify(headers)).toBe(404);
    }
  });

  it("leaves the upstream hosts' own traffic as it was", async () => {
    const send = gatewayWith(DEPLOYED);
    const res = await send("https://api.example.com/runs/stats", { headers: { "x-api-key": freshIdentity().apiKey } });
    expect(res.status).toBe(200);
    expect(res.headers.has("ratelimit")).toBe(true);
  });

  it("serves nothing but the admin API on an admin host: no upstream content shares its origin", async () => {
    for (const overrides of [{}, DEPLOYED]) {
      const upstream = recordingUpstream();
      const limiter = recordingLimiter();
      const host = overrides === DEPLOYED ? "tollgate-admin.example.com" : ADMIN_HOST;
      const send = adminGateway({ ...overrides, HOSTED_API: upstream.fetcher, COUNTERS: limiter.namespace });
      for (const path of ["/", "/runs/stats", "/v2/deployments", "/agent-server/info", "/_Tollgate/dashboard", "/_tollgatex"]) {
        const res = await send(`https://${host}${path}`, { headers: { ...bearer, "x-api-key": "k" } });
        expect(res.status, `${host}${path}`).toBe(404);
        expect(await res.json()).toMatchObject({ status: 404, detail: expect.stringContaining("admin API only") });
      }
      expect(upstream.seen).toHaveLength(0);
      expect(limiter.calls.hits).toBe(0);
    }
  });

  it("is off (404, health too) where ADMIN_HOSTS is unset, whatever the tokens", async () => {
    for (const hosts of [undefined, "", " , "]) {
      const send = gatewayWith({ ...DEPLOYED, ADMIN_HOSTS: hosts });
      for (const url of [
        "https://tollgate-admin.example.com/_tollgate/rules",
        "https://api.example.com/_tollgate/rules",
        "https://api.example.com/_tollgate/health",
      ]) {
        expect((await send(url, { headers: bearer })).status, `${hosts} ${url}`).toBe(404);
      }
    }
  });
});

describe("the dashboard's login", () => {
  it("is never offered on an upstream's origin: 404 with no challenge there, even to a browser holding the token", async () => {
    const send = adminGateway();
    for (const host of ["gateway.test", "127.0.0.1:8787", "localhost"]) {
      for (const path of ["/dashboard", "/dashboard/data"]) {
        const res = await send(`http://${host}/_tollgate${path}`, { headers: basic });
        expect(res.status, `${host}${path}`).toBe(404);
        expect(res.headers.get("www-authenticate")).toBeNull();
        expect(await res.text()).not.toContain("<html");
      }
      const anonymous = await send(`http://${host}/_tollgate/dashboard`, { headers: { accept: "text/html" } });
      expect(anonymous.headers.get("www-authenticate")).toBeNull();
    }
    // On the admin host: the challenge, then the page.
    const challenge = await send(adminUrl("/dashboard"), { headers: { accept: "text/html" } });
    expect(challenge.status).toBe(401);
    expect(challenge.headers.get("www-authenticate")).toMatch(/^Basic /);
    const page = await send(adminUrl("/dashboard"), { headers: basic });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("<html");
  });
});

describe("an admin host that is also an upstream host", () => {
  const SHARED: Partial<Env> = { ...DEPLOYED, ADMIN_HOSTS: "control.example.com" };

  it("is refused on that host, the upstream's paths included, naming ADMIN_HOSTS; health says so with 503", async () => {
    const upstream = recordingUpstream();
    const send = gatewayWith({ ...SHARED, HOSTED_API: upstream.fetcher });
    for (const path of ["/_tollgate/rules", "/_tollgate/dashboard", "/v2/deployments", "/"]) {
      const res = await send(`https://control.example.com${path}`, { headers: bearer });
      expect(res.status, path).toBe(500);
      expect(await res.json()).toMatchObject({ status: 500, detail: expect.stringMatching(/ADMIN_HOSTS: control\.example\.com is also an upstream host/) });
    }
    const health = await send("https://control.example.com/_tollgate/health", {});
    expect(health.status).toBe(503);
    expect(await health.json()).toMatchObject({ status: "unavailable", detail: expect.stringContaining("ADMIN_HOSTS") });
    // Traffic on the other hosts keeps flowing; the admin API is still nowhere else.
    expect((await send("https://api.example.com/runs/stats", { headers: { "x-api-key": freshIdentity().apiKey } })).status).toBe(200);
    expect((await send("https://api.example.com/_tollgate/rules", { headers: bearer })).status).toBe(404);
    expect(upstream.seen).toHaveLength(1);
  });

  it("is found through a wildcard of UPSTREAM_HOSTS too", async () => {
    const send = gatewayWith({ ...DEPLOYED, ADMIN_HOSTS: "admin.agents.example.com" });
    const res = await send("https://admin.agents.example.com/_tollgate/rules", { headers: bearer });
    expect(res.status).toBe(500);
    expect(await res.json()).toMatchObject({
      detail: expect.stringMatching(/admin\.agents\.example\.com is also an upstream host \(UPSTREAM_HOSTS serves it to agent-server\)/),
    });
  });

  it("is logged once as a misconfiguration", async () => {
    const log = vi.spyOn(console, "log");
    try {
      const send = gatewayWith({ ...SHARED });
      for (let i = 0; i < 3; i++) await send("https://control.example.com/_tollgate/rules", { headers: bearer });
      const lines = log.mock.calls.map(([line]) => String(line)).filter((line) => line.includes("ADMIN_HOSTS"));
      expect(lines).toHaveLength(1);
      expect(JSON.parse(lines[0]!)).toMatchObject({ event: "gateway_misconfigured" });
    } finally {
      log.mockRestore();
    }
  });
});

describe("an ADMIN_HOSTS that cannot be read", () => {
  it("names the mistake on /_tollgate/ of every host (health 503), and lets traffic flow", async () => {
    const send = gatewayWith({ ...DEPLOYED, ADMIN_HOSTS: "https://tollgate-admin.example.com" });
    for (const host of ["tollgate-admin.example.com", "api.example.com"]) {
      const res = await send(`https://${host}/_tollgate/rules`, { headers: bearer });
      expect(res.status, host).toBe(500);
      expect(await res.json()).toMatchObject({ detail: "gateway misconfigured: ADMIN_HOSTS: entry 1 is not a host name (no scheme, port, path or wildcard)" });
      const health = await send(`https://${host}/_tollgate/health`, {});
      expect(health.status).toBe(503);
    }
    expect((await send("https://api.example.com/runs/stats", { headers: { "x-api-key": freshIdentity().apiKey } })).status).toBe(200);
  });
});

describe("adminDoor", () => {
  it("sends the admin host to the admin API, /_tollgate/ elsewhere to a 404, and the rest to the gateway", () => {
    const env = { ADMIN_HOSTS: "admin.localhost", ROUTING: "paths" } as Env;
    expect(adminDoor(env, "https://admin.localhost/_tollgate/rules", true)).toBe("admin");
    expect(adminDoor(env, "https://admin.localhost/runs", false)).toBe("admin");
    expect(adminDoor(env, "https://gateway.test/_tollgate/rules", true)).toBe("not-found");
    expect(adminDoor(env, "https://gateway.test/runs", false)).toBeUndefined();
    const off = {} as Env;
    expect(adminDoor(off, "https://admin.localhost/_tollgate/rules", true)).toBe("not-found");
    expect(adminDoor(off, "https://admin.localhost/runs", false)).toBeUndefined();
  });

  it("keeps the tests' own request helper on the admin host", async () => {
    const res = await admin(adminGateway(), "GET", "/rules");
    expect(res.status).toBe(200);
  });
});
