// Issues 31 and 42: no spelling of a WebSocket upgrade escapes its counter or picks a fresh one.
// On a path with no socket rule (every path but the agent server's protocol v2 stream), every
// spelling of an upgrade is refused 400 before any counter or upstream, and never opens a socket.
// On the agent server's socket path, each spelling is counted under the rule its method and
// identity meet (429 before any 101 once that rule is exhausted), or refused 400 before any counter
// or upstream; none reaches the upstream uncounted.
import { env } from "cloudflare:workers";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { Region } from "../../../src/core/rules/schema.ts";
import { ruleTables } from "../../../src/core/rules/tables.ts";
import { gatewayWith, recordingLimiter, recordingUpstream, recordingUpstreams } from "../support/custom-gateway.ts";
import { burst, freshIdentity, gateway, keyed, type TestIdentity } from "../support/requests.ts";
import { commandSocket, recordingFetcher, ruleNameOf, upgradeHeaders } from "./support.ts";

const region = env.REGION as Region;
const agentServerRow = (name: string) => {
  const row = ruleTables["agent-server"].rules.find((rule) => rule.name === name);
  if (!row) throw new Error(`the agent server's table has no row ${name}`);
  return row.limits[region];
};

let now = Date.parse("2026-11-27T12:00:00Z");
// The clock moves only when a test moves it: a window expires when a test says so, never because
// the machine was slow between a burst and an upgrade.
beforeAll(() => {
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(now);
});
afterAll(() => vi.useRealTimers());

/** The agent server's protocol v2 socket path (its table's one socket rule), on a fresh thread id. */
const socketPath = (thread: string = crypto.randomUUID()) => `/agent-server/threads/${thread}/stream/events`;

/** Spends `count` units of `headers`' counter on the agent server with plain requests (a thread read, 404). */
async function exhaust(count: number, headers: Record<string, string>) {
  const statuses = await burst(count, () => gateway(`/agent-server/threads/${crypto.randomUUID()}`, { headers }));
  expect(Object.fromEntries(statuses)).toEqual({ 404: count });
}

/** Exhausts `agent-server-default-key` (row 201) for `who`'s key. */
const exhaustKey = (who: TestIdentity) => exhaust(agentServerRow("agent-server-default-key").count, keyed(who));

/** Opens the 101's socket, has one command answered by the upstream, and closes it: the upgrade was relayed. */
async function opens(res: Response) {
  const socket = commandSocket(res);
  expect(await socket.command("agent.getTree")).toMatchObject({ id: 1, type: expect.stringMatching(/^(success|error)$/) });
  expect(socket.received.some((message) => message.error === "permission_denied")).toBe(false);
  socket.close();
  await socket.closed;
}

const UPGRADE_SPELLINGS = ["WebSocket", "  websocket  ", "WEBSOCKET"];
/** Upgrade values that are no WebSocket upgrade (the runtime would not answer them with a socket). */
const NOT_WEBSOCKET = ["websocket, foo", "h2c, WEBSOCKET", "websocket/13", "h2c"];
// The runtime and the gateway read the Upgrade header alone; the upstream gets `Connection: Upgrade`.
const CONNECTION_LISTS = ["keep-alive, Upgrade", "uPgRaDe", "close, upgrade", " Upgrade ,keep-alive", "keep-alive"];
/** Every spelling of a WebSocket upgrade, as extra headers. */
const WEBSOCKET_SPELLINGS = [
  {},
  ...UPGRADE_SPELLINGS.map((upgrade) => ({ upgrade })),
  ...CONNECTION_LISTS.map((connection) => ({ connection })),
  { connection: "Upgrade, x-api-key" },
];

describe("an upgrade where no socket rule is", () => {
  // Hosted API, control plane and the agent server off its socket path, in several spellings of each path.
  const PATHS = [
    "/sessions/live",
    "/api/v1/sessions/live",
    "/runs/stats",
    "/runs%2Fstats",
    "/runs/%73tats",
    "/x/../runs/stats",
    "/things/trigger",
    "/v2/deployments",
    `/agent-server/threads/${crypto.randomUUID()}/stream`,
    `/agent-server/threads/${crypto.randomUUID()}/commands`,
    "/agent-server/threads/not-a-uuid/stream/events",
  ];

  it.each(PATHS)("%s: every spelling of it is refused 400 before any counter or upstream, and opens no socket", async (path) => {
    const upstreams = recordingUpstreams();
    const limiter = recordingLimiter();
    const send = gatewayWith({ ...upstreams.bindings, COUNTERS: limiter.namespace });
    for (const spelling of WEBSOCKET_SPELLINGS) {
      const res = await send(path, { headers: upgradeHeaders(keyed(freshIdentity(), spelling)) });
      const { detail } = (await res.json()) as { detail: string };
      expect([spelling, res.status, res.webSocket, detail]).toEqual([spelling, 400, null, expect.stringMatching(/^No WebSocket is served on \//)]);
    }
    expect(limiter.calls.hits).toBe(0);
    expect(upstreams.reached()).toEqual([]);
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
});

describe("Upgrade and Connection spellings on the agent server's socket path", () => {
  it.each(UPGRADE_SPELLINGS)("Upgrade: %j is relayed as a socket, counted on its rule", async (upgrade) => {
    const res = await gateway(socketPath(), { headers: upgradeHeaders(keyed(freshIdentity(), { upgrade })) });
    expect(ruleNameOf(res)).toBe("agent-server-default-key");
    await opens(res);
  });

  it.each(CONNECTION_LISTS)("Connection: %j is relayed as a socket, counted on its rule", async (connection) => {
    const res = await gateway(socketPath(), { headers: upgradeHeaders(keyed(freshIdentity(), { connection })) });
    expect(ruleNameOf(res)).toBe("agent-server-default-key");
    await opens(res);
  });

  it("counts every spelling on the exhausted key: 429 before any 101", async () => {
    const who = freshIdentity();
    await exhaustKey(who);
    const spellings = [...[...UPGRADE_SPELLINGS, ...NOT_WEBSOCKET].map((upgrade) => ({ upgrade })), ...CONNECTION_LISTS.map((connection) => ({ connection }))];
    for (const spelling of spellings) {
      const res = await gateway(socketPath(), { headers: upgradeHeaders(keyed(who, spelling)) });
      expect([spelling, res.status, ruleNameOf(res), res.webSocket]).toEqual([spelling, 429, "agent-server-default-key", null]);
    }
  });

  it("a Connection naming x-api-key or x-user-id (which would strip it on the way) is counted, then refused with 400", async () => {
    for (const named of ["x-api-key", "X-User-Id"]) {
      const who = freshIdentity();
      const upstreams = recordingUpstreams();
      const limiter = recordingLimiter();
      const send = gatewayWith({ ...upstreams.bindings, COUNTERS: limiter.namespace });
      const res = await send(socketPath(), { headers: upgradeHeaders(keyed(who, { "x-user-id": who.userId, connection: `Upgrade, ${named}` })) });
      expect(res.status).toBe(400);
      expect(((await res.json()) as { detail: string }).detail).toContain(`Connection must not name ${named.toLowerCase()}`);
      expect(limiter.calls.hits).toBe(1);
      expect(upstreams.reached()).toEqual([]);
    }
    // On the exhausted key it is counted there first: 429.
    const who = freshIdentity();
    await exhaustKey(who);
    const res = await gateway(socketPath(), { headers: upgradeHeaders(keyed(who, { connection: "Upgrade, x-api-key" })) });
    expect([res.status, ruleNameOf(res)]).toEqual([429, "agent-server-default-key"]);
  });
});

describe("the socket's path in another spelling", () => {
  it("is counted on the same key, every spelling of the path and of the thread id: 429 before any 101 once exhausted", async () => {
    const who = freshIdentity();
    await exhaustKey(who);
    const thread = crypto.randomUUID();
    const paths = [
      socketPath(thread),
      socketPath(thread.toUpperCase()),
      socketPath(thread.replaceAll("-", "")),
      socketPath(`{${thread}}`),
      socketPath(`urn:uuid:${thread}`),
      `/agent-server/threads/./${thread}/stream/events`,
      `/agent-server/threads/${thread}/stream/%65vents`,
      `/agent-server/x/../threads/${thread}/stream/events`,
      // A deployment's agent server is counted on the same rows (src/gateway/routes.ts, deploymentScope).
      `/deployments/${crypto.randomUUID()}/threads/${thread}/stream/events`,
      `/agent-server/deployments/${crypto.randomUUID()}/threads/${thread}/stream/events`,
    ];
    for (const path of paths) {
      const res = await gateway(path, { headers: upgradeHeaders(keyed(who)) });
      expect([path, res.status, ruleNameOf(res), res.webSocket]).toEqual([path, 429, "agent-server-default-key", null]);
    }
    // Spellings the agent server would route as another path are refused before any counter (path-spelling.ts).
    for (const path of [`/agent-server/threads//${thread}/stream/events`, `/agent-server/threads/${thread}%2Fstream/events`, `${socketPath(thread)}/`]) {
      const res = await gateway(path, { headers: upgradeHeaders(keyed(who)) });
      expect([path, res.status, ruleNameOf(res), res.webSocket]).toEqual([path, 400, undefined, null]);
    }
  });
});

describe("an upgrade without a key", () => {
  it("is counted on the IP rule of its address, whatever key-shaped header it carries instead", async () => {
    const who = freshIdentity();
    const upstream = recordingFetcher(env.AGENT_SERVER!);
    const send = gatewayWith({ AGENT_SERVER: upstream.fetcher });
    const res = await send(socketPath(), { headers: upgradeHeaders({ "cf-connecting-ip": who.ip, x_api_key: who.apiKey }) });
    expect(ruleNameOf(res)).toBe("agent-server-public-ip");
    // The underscore spelling some stacks read as x-api-key never reaches the upstream.
    expect(upstream.seen[0]!.headers.get("x_api_key")).toBeNull();
    expect(upstream.seen[0]!.headers.get("x-api-key")).toBeNull();
    await opens(res);
  });

  it("stays on its address's exhausted IP counter, whatever bearer token or tenant it carries", async () => {
    const who = freshIdentity();
    await exhaust(agentServerRow("agent-server-public-ip").count, { "cf-connecting-ip": who.ip });
    for (let i = 0; i < 3; i++) {
      const headers = upgradeHeaders({ "cf-connecting-ip": who.ip, authorization: `Bearer fresh-${i}-${Math.random()}`, "x-tenant-id": crypto.randomUUID() });
      const res = await gateway(socketPath(), { headers });
      expect([res.status, ruleNameOf(res), res.webSocket]).toEqual([429, "agent-server-public-ip", null]);
    }
  });
});

describe("refused on the socket's path before any counter or upstream", () => {
  /** A gateway whose counters and upstreams record what reached them. */
  function recorded() {
    const upstreams = recordingUpstreams();
    const limiter = recordingLimiter();
    const send = gatewayWith({ ...upstreams.bindings, COUNTERS: limiter.namespace });
    return { send, untouched: () => expect([limiter.calls.hits, upstreams.reached()]).toEqual([0, []]) };
  }

  const refusals: Array<[string, RequestInit, string]> = [
    ["a POST upgrade", { method: "POST", body: "{}" }, "must use GET"],
    ["a PUT upgrade", { method: "PUT" }, "must use GET"],
    ["a subprotocol offer", { headers: { "sec-websocket-protocol": "bearer, secret-token" } }, "Sec-WebSocket-Protocol is not accepted"],
    ["a subprotocol offer of one name", { headers: { "sec-websocket-protocol": "graphql-ws" } }, "Sec-WebSocket-Protocol is not accepted"],
  ];
  it.each(refusals)("%s", async (_, init, detail) => {
    const { send, untouched } = recorded();
    const res = await send(socketPath(), { ...init, headers: upgradeHeaders(keyed(freshIdentity(), init.headers as Record<string, string> | undefined)) });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { detail: string }).detail).toContain(detail);
    untouched();
  });

  it.each(["api_key", "apiKey", "X-Api-Key", "token", "access_token", "key", "tenant_id", "authorization"])(
    "a credential in the query: ?%s=...",
    async (name) => {
      const { send, untouched } = recorded();
      const res = await send(`${socketPath()}?since=3&${name}=fresh-${Math.random()}`, { headers: upgradeHeaders(keyed(freshIdentity())) });
      expect(res.status).toBe(400);
      expect(((await res.json()) as { detail: string }).detail).toContain(`Query parameter ${name} is not accepted on a WebSocket upgrade`);
      untouched();
    },
  );

  it.each([
    ["comma-joined", (who: TestIdentity) => upgradeHeaders(keyed(who, { "x-api-key": `${who.apiKey},other` }))],
    [
      "repeated",
      (who: TestIdentity) => {
        const headers = new Headers(upgradeHeaders(keyed(who)));
        headers.append("x-api-key", "other");
        return headers;
      },
    ],
  ])("a %s x-api-key, as on any request", async (_, headers) => {
    const { send, untouched } = recorded();
    const res = await send(socketPath(), { headers: headers(freshIdentity()) });
    expect(res.status).toBe(400);
    untouched();
  });

  it("lets a query without a credential through", async () => {
    const res = await gateway(`${socketPath()}?since=3&channels=values`, { headers: upgradeHeaders(keyed(freshIdentity())) });
    expect(ruleNameOf(res)).toBe("agent-server-default-key");
    await opens(res);
  });
});

describe("a refused upgrade, then a retry", () => {
  it("is refused again while the counter is exhausted, and admitted once its window has passed", async () => {
    const who = freshIdentity();
    await exhaustKey(who);
    const first = await gateway(socketPath(), { headers: upgradeHeaders(keyed(who)) });
    expect(first.status).toBe(429);
    const retryAfter = Number(first.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThan(0);
    // Retried at once, in another spelling, from another address: the same counter, still exhausted.
    const again = await gateway(socketPath(), { headers: upgradeHeaders(keyed({ apiKey: who.apiKey, ip: "203.0.113.9" }, { upgrade: "WebSocket" })) });
    expect([again.status, ruleNameOf(again)]).toEqual([429, "agent-server-default-key"]);
    now += (agentServerRow("agent-server-default-key").interval + 1) * 1000;
    vi.setSystemTime(now);
    const later = await gateway(socketPath(), { headers: upgradeHeaders(keyed(who)) });
    expect(ruleNameOf(later)).toBe("agent-server-default-key");
    await opens(later);
  });
});
