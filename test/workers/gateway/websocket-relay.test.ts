// Issue 31: a WebSocket through the gateway. An admitted upgrade is relayed both ways untouched
// (text and binary frames, closes from either side with their codes and reasons); an exhausted
// counter refuses it with the usual 429 before any 101. The upstream is the hosted-API echo, which
// accepts any upgrade and echoes each frame (emulators/hosted-api/websocket-echo.ts).
import { env } from "cloudflare:workers";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { Region } from "../../../src/core/rules/schema.ts";
import { publishedRow } from "../../support/rows.ts";
import { gatewayWith, recordingUpstream } from "../support/custom-gateway.ts";
import { burst, freshIdentity, gateway, keyed } from "../support/requests.ts";
import { acceptSocket, ruleNameOf, upgradeHeaders } from "./support.ts";

const region = env.REGION as Region;

// The clock stands still while a row is exhausted, so no window can expire between the burst and
// the upgrade on a slow machine.
beforeAll(() => {
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(new Date("2026-11-27T12:00:00Z"));
});
afterAll(() => vi.useRealTimers());

describe("an admitted WebSocket", () => {
  it("is answered 101 with the RateLimit headers of its rule, and echoes text and binary frames both ways", async () => {
    const who = freshIdentity();
    const res = await gateway("/sessions/live", { headers: upgradeHeaders(keyed(who)) });
    expect(ruleNameOf(res)).toBe("default-key");
    expect(res.headers.get("ratelimit")).toMatch(/^"default-key";r=\d+;t=\d+$/);
    const peer = acceptSocket(res);
    peer.socket.send("hello");
    expect(await peer.next()).toBe("hello");
    const bytes = new Uint8Array([0, 1, 2, 250, 255]);
    peer.socket.send(bytes);
    expect(await peer.next()).toEqual(bytes);
    // A frame larger than one chunk of any buffer on the way, whole and in order.
    const large = "x".repeat(256 * 1024);
    peer.socket.send(large);
    peer.socket.send("after");
    expect(await peer.next()).toBe(large);
    expect(await peer.next()).toBe("after");
    peer.socket.close(1000, "done");
    expect(await peer.closed).toEqual({ code: 1000, reason: "done" });
  });

  it.each([
    [4000, "client going"],
    [4999, ""],
    [1000, "normal, with a reason"],
  ])("passes the client's close %i %j to the upstream, which answers it with the same", async (code, reason) => {
    const peer = acceptSocket(await gateway("/sessions/live", { headers: upgradeHeaders(keyed(freshIdentity())) }));
    peer.socket.close(code, reason);
    expect(await peer.closed).toEqual({ code, reason });
  });

  it.each([
    [4403, "forbidden"],
    [4404, "thread not found"],
    [4422, ""],
    [1000, "finished"],
  ])("passes the upstream's close %i %j to the client", async (code, reason) => {
    const peer = acceptSocket(await gateway("/sessions/live", { headers: upgradeHeaders(keyed(freshIdentity())) }));
    peer.socket.send(`close ${code} ${reason}`);
    expect(await peer.closed).toEqual({ code, reason });
  });

  it("reaches the upstream as an upgrade on the canonical path, with the key it was counted by and the edge's address", async () => {
    const who = freshIdentity();
    const upstream = recordingUpstream();
    const send = gatewayWith({ HOSTED_API: upstream.fetcher });
    const peer = acceptSocket(await send("/api/v1/sessions/./live", { headers: upgradeHeaders(keyed(who, { "x-forwarded-for": "6.6.6.6" })) }));
    expect(upstream.seen).toHaveLength(1);
    const seen = upstream.seen[0]!;
    expect(new URL(seen.url).pathname).toBe("/api/v1/sessions/live");
    expect(seen.method).toBe("GET");
    expect(seen.headers.get("upgrade")).toBe("websocket");
    expect(seen.headers.get("x-api-key")).toBe(who.apiKey);
    expect(seen.headers.get("x-forwarded-for")).toBe(who.ip);
    peer.socket.send("through");
    expect(await peer.next()).toBe("through");
    peer.socket.close(1000, "");
    await peer.closed;
  });

  it("is counted under the IP rules when it carries no key, as the official client's browser-safe socket does", async () => {
    const who = freshIdentity();
    const res = await gateway("/sessions/live", { headers: upgradeHeaders({ "cf-connecting-ip": who.ip }) });
    expect(ruleNameOf(res)).toBe("public-ip");
    const peer = acceptSocket(res);
    peer.socket.close(1000, "");
    await peer.closed;
  });
});

describe("an upgrade the upstream does not accept", () => {
  it("is answered with the upstream's own answer, counted like any request", async () => {
    const send = gatewayWith({ HOSTED_API: { fetch: async () => Response.json({ detail: "Not Found" }, { status: 404 }) } as unknown as Fetcher });
    const res = await send("/sessions/live", { headers: upgradeHeaders(keyed(freshIdentity())) });
    expect(res.status).toBe(404);
    expect(res.webSocket).toBeNull();
    expect(ruleNameOf(res)).toBe("default-key");
    expect(await res.json()).toEqual({ detail: "Not Found" });
  });
});

describe("the agent server's protocol v2 socket, through the gateway", () => {
  it.each([
    [crypto.randomUUID(), 4404],
    ["not-a-uuid", 4422],
  ])("is counted on the agent server's key rule and passes its final close (thread %s: %i)", async (thread, code) => {
    const res = await gateway(`/agent-server/threads/${thread}/stream/events`, { headers: upgradeHeaders(keyed(freshIdentity())) });
    expect(ruleNameOf(res)).toBe("agent-server-default-key");
    const peer = acceptSocket(res);
    expect((await peer.closed).code).toBe(code);
  });
});

describe("an exhausted counter", () => {
  it("refuses the upgrade with the usual 429 (Retry-After, RateLimit headers, problem body) and no socket", async () => {
    const who = freshIdentity();
    const { count } = publishedRow(28).limits[region];
    const statuses = await burst(count, () => gateway("/runs/stats", { headers: keyed(who) }));
    expect(Object.fromEntries(statuses)).toEqual({ 200: count });
    const res = await gateway("/runs/stats", { headers: upgradeHeaders(keyed(who)) });
    expect(res.status).toBe(429);
    expect(res.webSocket).toBeNull();
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(ruleNameOf(res)).toBe("runs-stats-key");
    expect(res.headers.get("ratelimit")).toMatch(/^"runs-stats-key";r=0;t=\d+$/);
    expect(res.headers.get("content-type")).toBe("application/problem+json");
    expect(await res.json()).toMatchObject({ status: 429 });
  });

  it("counts an admitted upgrade once: a socket spends one unit, and the next request meets the exhausted counter", async () => {
    const who = freshIdentity();
    const { count } = publishedRow(28).limits[region];
    if (count > 1) {
      const statuses = await burst(count - 1, () => gateway("/runs/stats", { headers: keyed(who) }));
      expect(Object.fromEntries(statuses)).toEqual({ 200: count - 1 });
    }
    const res = await gateway("/runs/stats", { headers: upgradeHeaders(keyed(who)) });
    expect(res.headers.get("ratelimit")).toMatch(/^"runs-stats-key";r=0;t=\d+$/);
    const peer = acceptSocket(res);
    // Frames are not counted: many of them leave the counter as it was.
    for (let i = 0; i < 20; i++) peer.socket.send(`frame ${i}`);
    for (let i = 0; i < 20; i++) expect(await peer.next()).toBe(`frame ${i}`);
    const next = await gateway("/runs/stats", { headers: keyed(who) });
    expect(next.status).toBe(429);
    // The socket stays open when its counter is exhausted after it was admitted.
    peer.socket.send("still open");
    expect(await peer.next()).toBe("still open");
    peer.socket.close(1000, "");
    await peer.closed;
  });
});
