// Issue 31: no spelling of a WebSocket upgrade escapes its counter or picks a fresh one. Each case
// is counted under the rule its path, method and identity meet (429 once that rule is exhausted),
// or refused (400) before any counter or upstream; none reaches an upstream uncounted.
import { env } from "cloudflare:workers";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { Region } from "../../../src/core/rules/schema.ts";
import { publishedRow } from "../../support/rows.ts";
import { gatewayWith, recordingLimiter, recordingUpstream } from "../support/custom-gateway.ts";
import { burst, freshIdentity, gateway, keyed, type TestIdentity } from "../support/requests.ts";
import { acceptSocket, ruleNameOf, upgradeHeaders } from "./support.ts";

const region = env.REGION as Region;
const limitOf = (id: number) => publishedRow(id).limits[region];

let now = Date.parse("2026-11-27T12:00:00Z");
// The clock moves only when a test moves it: a window expires when a test says so, never because
// the machine was slow between a burst and an upgrade.
beforeAll(() => {
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(now);
});
afterAll(() => vi.useRealTimers());

/** Exhausts row 28 (`GET /runs/stats`, by key) for `who` with plain requests. */
async function exhaustRunsStats(who: TestIdentity) {
  const { count } = limitOf(28);
  const statuses = await burst(count, () => gateway("/runs/stats", { headers: keyed(who) }));
  expect(Object.fromEntries(statuses)).toEqual({ 200: count });
}

/** Opens, echoes one frame and closes: the upgrade was relayed as a socket. */
async function echoes(res: Response) {
  const peer = acceptSocket(res);
  peer.socket.send("ping");
  expect(await peer.next()).toBe("ping");
  peer.socket.close(1000, "");
  await peer.closed;
}

const UPGRADE_SPELLINGS = ["WebSocket", "  websocket  ", "WEBSOCKET"];
/** Upgrade values that are no WebSocket upgrade (the runtime would not answer them with a socket). */
const NOT_WEBSOCKET = ["websocket, foo", "h2c, WEBSOCKET", "websocket/13", "h2c"];
// The runtime and the gateway read the Upgrade header alone; the upstream gets `Connection: Upgrade`.
const CONNECTION_LISTS = ["keep-alive, Upgrade", "uPgRaDe", "close, upgrade", " Upgrade ,keep-alive", "keep-alive"];

describe("Upgrade and Connection spellings", () => {
  it.each(UPGRADE_SPELLINGS)("Upgrade: %j is relayed as a socket, counted on its rule", async (upgrade) => {
    const res = await gateway("/sessions/live", { headers: upgradeHeaders(keyed(freshIdentity(), { upgrade })) });
    expect(ruleNameOf(res)).toBe("default-key");
    await echoes(res);
  });

  it.each(CONNECTION_LISTS)("Connection: %j is relayed as a socket, counted on its rule", async (connection) => {
    const res = await gateway("/sessions/live", { headers: upgradeHeaders(keyed(freshIdentity(), { connection })) });
    expect(ruleNameOf(res)).toBe("default-key");
    await echoes(res);
  });

  it("counts every spelling on the exhausted row: 429 before any 101", async () => {
    const who = freshIdentity();
    await exhaustRunsStats(who);
    const spellings = [...[...UPGRADE_SPELLINGS, ...NOT_WEBSOCKET].map((upgrade) => ({ upgrade })), ...CONNECTION_LISTS.map((connection) => ({ connection }))];
    for (const spelling of spellings) {
      const res = await gateway("/runs/stats", { headers: upgradeHeaders(keyed(who, spelling)) });
      expect([spelling, res.status, ruleNameOf(res), res.webSocket]).toEqual([spelling, 429, "runs-stats-key", null]);
    }
  });

  it.each(NOT_WEBSOCKET.map((upgrade) => ({ upgrade })))("%j is no WebSocket upgrade: a plain GET, counted, its Upgrade dropped", async (spelling) => {
    const upstream = recordingUpstream();
    const send = gatewayWith({ HOSTED_API: upstream.fetcher });
    const res = await send("/sessions/live", { headers: upgradeHeaders(keyed(freshIdentity(), spelling)) });
    expect(res.status).toBe(200);
    expect(res.webSocket).toBeNull();
    expect(ruleNameOf(res)).toBe("default-key");
    expect(upstream.seen[0]!.headers.get("upgrade")).toBeNull();
  });

  it("a Connection naming x-api-key or x-user-id (which would strip it on the way) is counted, then refused with 400", async () => {
    for (const named of ["x-api-key", "X-User-Id"]) {
      const who = freshIdentity();
      const upstream = recordingUpstream();
      const limiter = recordingLimiter();
      const send = gatewayWith({ HOSTED_API: upstream.fetcher, COUNTERS: limiter.namespace });
      const res = await send("/sessions/live", { headers: upgradeHeaders(keyed(who, { "x-user-id": who.userId, connection: `Upgrade, ${named}` })) });
      expect(res.status).toBe(400);
      expect(((await res.json()) as { detail: string }).detail).toContain(`Connection must not name ${named.toLowerCase()}`);
      expect(limiter.calls.hits).toBe(1);
      expect(upstream.seen).toHaveLength(0);
    }
    // On the exhausted row it is counted there first: 429.
    const who = freshIdentity();
    await exhaustRunsStats(who);
    const res = await gateway("/runs/stats", { headers: upgradeHeaders(keyed(who, { connection: "Upgrade, x-api-key" })) });
    expect([res.status, ruleNameOf(res)]).toEqual([429, "runs-stats-key"]);
  });
});

describe("an upgrade on a path of another rule", () => {
  it("is counted on the rule its path meets, in any spelling of the path", async () => {
    const who = freshIdentity();
    await exhaustRunsStats(who);
    for (const path of ["/runs/stats", "/api/v1/runs/stats", "/runs//stats", "/runs/./stats", "/runs/%73tats", "/x/../runs/stats"]) {
      const res = await gateway(path, { headers: upgradeHeaders(keyed(who)) });
      expect([path, res.status, ruleNameOf(res)]).toEqual([path, 429, "runs-stats-key"]);
    }
  });

  it("is counted on the method-free suffix rule (`/trigger`, row 18) as a GET", async () => {
    const res = await gateway("/things/trigger", { headers: upgradeHeaders(keyed(freshIdentity())) });
    expect(ruleNameOf(res)).toBe("deletion-key");
    await echoes(res);
  });

  it("without a key is counted on the IP rule of its address, whatever key-shaped header it carries instead", async () => {
    const who = freshIdentity();
    const upstream = recordingUpstream();
    const send = gatewayWith({ HOSTED_API: upstream.fetcher });
    const res = await send("/sessions/live", { headers: upgradeHeaders({ "cf-connecting-ip": who.ip, x_api_key: who.apiKey }) });
    expect(ruleNameOf(res)).toBe("public-ip");
    // The underscore spelling some stacks read as x-api-key never reaches the upstream.
    expect(upstream.seen[0]!.headers.get("x_api_key")).toBeNull();
    expect(upstream.seen[0]!.headers.get("x-api-key")).toBeNull();
    await echoes(res);
  });
});

describe("a credential the gateway does not count by", () => {
  it("leaves a socket without x-api-key on its address's exhausted IP counter, whatever bearer token or tenant it carries", async () => {
    const who = freshIdentity();
    const { count } = limitOf(29);
    const statuses = await burst(count, () => gateway("/sessions/live", { headers: { "cf-connecting-ip": who.ip } }));
    expect(Object.fromEntries(statuses)).toEqual({ 200: count });
    for (let i = 0; i < 3; i++) {
      const headers = upgradeHeaders({ "cf-connecting-ip": who.ip, authorization: `Bearer fresh-${i}-${Math.random()}`, "x-tenant-id": crypto.randomUUID() });
      const res = await gateway("/sessions/live", { headers });
      expect([res.status, ruleNameOf(res)]).toEqual([429, "public-ip"]);
    }
  });
});

describe("refused before any counter or upstream", () => {
  const refusals: Array<[string, RequestInit, string]> = [
    ["a POST upgrade", { method: "POST", body: "{}" }, "must use GET"],
    ["a PUT upgrade", { method: "PUT" }, "must use GET"],
    ["a subprotocol offer", { headers: { "sec-websocket-protocol": "bearer, secret-token" } }, "Sec-WebSocket-Protocol is not accepted"],
    ["a subprotocol offer of one name", { headers: { "sec-websocket-protocol": "graphql-ws" } }, "Sec-WebSocket-Protocol is not accepted"],
  ];
  it.each(refusals)("%s", async (_, init, detail) => {
    const who = freshIdentity();
    const upstream = recordingUpstream();
    const limiter = recordingLimiter();
    const send = gatewayWith({ HOSTED_API: upstream.fetcher, COUNTERS: limiter.namespace });
    const res = await send("/sessions/live", { ...init, headers: upgradeHeaders(keyed(who, init.headers as Record<string, string> | undefined)) });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { detail: string }).detail).toContain(detail);
    expect(limiter.calls.hits).toBe(0);
    expect(upstream.seen).toHaveLength(0);
  });

  it.each(["api_key", "apiKey", "X-Api-Key", "token", "access_token", "key", "tenant_id", "authorization"])(
    "a credential in the query: ?%s=...",
    async (name) => {
      const upstream = recordingUpstream();
      const limiter = recordingLimiter();
      const send = gatewayWith({ HOSTED_API: upstream.fetcher, COUNTERS: limiter.namespace });
      const res = await send(`/sessions/live?since=3&${name}=fresh-${Math.random()}`, { headers: upgradeHeaders(keyed(freshIdentity())) });
      expect(res.status).toBe(400);
      expect(((await res.json()) as { detail: string }).detail).toContain(`Query parameter ${name} is not accepted on a WebSocket upgrade`);
      expect(limiter.calls.hits).toBe(0);
      expect(upstream.seen).toHaveLength(0);
    },
  );

  it("a repeated or comma-joined x-api-key, as on any request", async () => {
    const who = freshIdentity();
    const limiter = recordingLimiter();
    const send = gatewayWith({ COUNTERS: limiter.namespace });
    const res = await send("/sessions/live", { headers: upgradeHeaders(keyed(who, { "x-api-key": `${who.apiKey},other` })) });
    expect(res.status).toBe(400);
    expect(limiter.calls.hits).toBe(0);
  });

  it("lets a query without a credential through", async () => {
    const res = await gateway("/sessions/live?since=3&channels=values", { headers: upgradeHeaders(keyed(freshIdentity())) });
    await echoes(res);
  });
});

describe("a refused upgrade, then a retry", () => {
  it("is refused again while the counter is exhausted, and admitted once its window has passed", async () => {
    const who = freshIdentity();
    await exhaustRunsStats(who);
    const first = await gateway("/runs/stats", { headers: upgradeHeaders(keyed(who)) });
    expect(first.status).toBe(429);
    const retryAfter = Number(first.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThan(0);
    // Retried at once, in another spelling, from another address: the same counter, still exhausted.
    const again = await gateway("/runs/stats", { headers: upgradeHeaders(keyed({ apiKey: who.apiKey, ip: "203.0.113.9" }, { upgrade: "WebSocket" })) });
    expect([again.status, ruleNameOf(again)]).toEqual([429, "runs-stats-key"]);
    now += (limitOf(28).interval + 1) * 1000;
    vi.setSystemTime(now);
    const later = await gateway("/runs/stats", { headers: upgradeHeaders(keyed(who)) });
    expect(ruleNameOf(later)).toBe("runs-stats-key");
    await echoes(later);
  });
});
