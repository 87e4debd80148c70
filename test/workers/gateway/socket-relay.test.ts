// Issue 42: the relay's own behaviour (src/gateway/websocket.ts), against an upstream the test
// plays (scriptedUpstream): closes pass both ways with their codes and reasons, an upstream's
// failure and an idle socket end it with the documented codes, frames from the upstream are never
// counted, a client that outruns its counting is closed, and frames reach the upstream in order.
import { describe, expect, it } from "vitest";
import type { CounterAnswer } from "../../../src/core/limiter/index.ts";
import { compileClassifier } from "../../../src/core/rules/classify.ts";
import { loadRuleTable } from "../../../src/core/rules/load.ts";
import type { HitBatch } from "../../../src/durable-objects/counter-object.ts";
import type { Env } from "../../../src/env.ts";
import { gatewayWith } from "../support/custom-gateway.ts";
import { freshIdentity, keyed } from "../support/requests.ts";
import { relayedSocket } from "../../../src/gateway/websocket.ts";
import { acceptSocket, peerOf, scriptedUpstream, upgradeHeaders, type SocketPeer } from "./support.ts";

const limit = (count: number, interval = 60) => ({ us: { count, interval }, eu: { count, interval } });

/** A `frames` socket on /relay/live: each client frame counted as the upgrade, 50 a minute per key. */
const classifier = compileClassifier(
  loadRuleTable({
    table: "socket-relay-test",
    sockets: [{ path: { kind: "exact", pattern: "/relay/live" }, protocol: "frames" }],
    rules: [
      {
        id: 1,
        name: "relay-key",
        category: "Relay",
        tier: "specific",
        match: [{ path: { kind: "exact", pattern: "/relay/live" } }],
        identity: "api-key",
        limits: limit(50),
      },
      { id: 2, name: "default-key", category: "Default", tier: "default", match: [{}], identity: "api-key", limits: limit(1000) },
      { id: 3, name: "everyone-ip", category: "Catch-all", tier: "catch-all", match: [{}], identity: "ip", limits: limit(1000) },
    ],
  }),
);

/** A gateway whose hosted API is a fresh scripted upstream; `overrides` replace more of the env. */
function relayThrough(overrides: Partial<Env> = {}) {
  const upstream = scriptedUpstream();
  const send = gatewayWith({ HOSTED_API: upstream.fetcher, ...overrides }, classifier);
  /** Opens a socket on /relay/live for `who`: the client's end and the upstream's. */
  const open = async (who = freshIdentity()) => {
    const res = await send("/relay/live", { headers: upgradeHeaders(keyed(who)) });
    const client = acceptSocket(res);
    return { res, client, upstream: await upstream.opened() };
  };
  return { send, upstream, open };
}

/** Whether `peer`'s close has arrived yet (a flag kept current from now on). */
function watchClosed(peer: SocketPeer): () => boolean {
  let closed = false;
  void peer.closed.then(() => (closed = true));
  return () => closed;
}

const sleep = (ms: number) => new Promise((wake) => setTimeout(wake, ms));
const text = (frame: string | Uint8Array) => (typeof frame === "string" ? frame : new TextDecoder().decode(frame));

describe("closes through the relay", () => {
  it.each([
    [1000, "finished"],
    [4404, "thread not found"],
    [4000, ""],
    [4999, "x".repeat(123)],
  ])("the upstream's close %i %j reaches the client with its code and reason", async (code, reason) => {
    const { client, upstream } = await relayThrough().open();
    upstream.socket.close(code, reason);
    expect(await client.closed).toEqual({ code, reason });
  });

  it.each([
    [1000, "done"],
    [4000, "client going"],
    [4999, ""],
  ])("the client's close %i %j reaches the upstream with its code and reason", async (code, reason) => {
    const { client, upstream } = await relayThrough().open();
    client.socket.close(code, reason);
    expect(await upstream.closed).toEqual({ code, reason });
  });

  it("a close without a code is passed on as a close without a code (1005), either way", async () => {
    const relay = relayThrough();
    const first = await relay.open();
    first.upstream.socket.close();
    expect(await first.client.closed).toEqual({ code: 1005, reason: "" });

    const second = await relay.open();
    second.client.socket.close();
    expect(await second.upstream.closed).toEqual({ code: 1005, reason: "" });
  });

  it("an error on the upstream's socket closes the client 1011, and the upstream's end", async () => {
    const { client, upstream } = await relayThrough().open();
    // The relay listens on the end the upstream handed over in its 101; an error there is the upstream's socket failing.
    upstream.gatewayEnd.dispatchEvent(new Event("error"));
    expect(await client.closed).toEqual({ code: 1011, reason: "The upstream's socket failed." });
    expect((await upstream.closed).code).toBe(1005);
  });
});

describe("an idle socket", () => {
  it("is closed 4408 to the client, and going away (1001) to the upstream, once nothing crossed it for SOCKET_IDLE_SECONDS", async () => {
    const { client, upstream } = await relayThrough({ SOCKET_IDLE_SECONDS: "1" }).open();
    const [toClient, toUpstream] = await Promise.all([client.closed, upstream.closed]);
    expect(toClient).toEqual({ code: 4408, reason: "No frame crossed the socket for 1 s." });
    expect(toUpstream).toEqual({ code: 1001, reason: "No frame crossed the socket for 1 s." });
  });

  it.each(["client", "upstream"] as const)("is kept open by frames from the %s, and closed once they stop", async (sender) => {
    const { client, upstream } = await relayThrough({ SOCKET_IDLE_SECONDS: "1" }).open();
    const clientClosed = watchClosed(client);
    const [from, to] = sender === "client" ? [client, upstream] : [upstream, client];
    // A frame every 300 ms for 2 s: twice the idle timeout, never a second without a frame.
    for (let i = 0; i < 7; i++) {
      from.socket.send(`frame ${i}`);
      expect(text(await to.next())).toBe(`frame ${i}`);
      await sleep(300);
    }
    expect(clientClosed()).toBe(false);
    expect((await client.closed).code).toBe(4408);
  });
});

describe("frames from the upstream", () => {
  it("are never counted: 1,000 of them leave the key's counter as it was, while each client frame takes a unit", async () => {
    const who = freshIdentity();
    const { send, open } = relayThrough();
    const remaining = async () => {
      const res = await send("/relay/live", { headers: keyed(who) });
      expect(res.status).toBe(200);
      return res.headers.get("ratelimit");
    };
    expect(await remaining()).toBe('"relay-key";r=49;t=60');
    const { res, client, upstream } = await open(who);
    expect(res.headers.get("ratelimit")).toBe('"relay-key";r=48;t=60');
    for (let i = 0; i < 1000; i++) upstream.socket.send(`event ${i}`);
    for (let i = 0; i < 1000; i++) expect(await client.next()).toBe(`event ${i}`);
    expect(await remaining()).toBe('"relay-key";r=47;t=60');
    // The same check sees client frames: three of them, three units.
    for (let i = 0; i < 3; i++) client.socket.send(`call ${i}`);
    for (let i = 0; i < 3; i++) expect(await upstream.next()).toBe(`call ${i}`);
    expect(await remaining()).toBe('"relay-key";r=43;t=60');
    client.socket.close(1000, "");
    await upstream.closed;
  });
});

/** What a namespace wrapper does with one counter call, by its order among the calls (0 = first). */
type CallPlan = (index: number, batches: HitBatch[]) => Promise<CounterAnswer[]>;

/** Every hit admitted without being counted, and no lease, so the next hit calls again. */
const admitted = (batches: HitBatch[]): CounterAnswer[] =>
  batches.map(({ limit: { count }, hits }) => ({
    verdicts: Array.from({ length: hits }, () => ({ allowed: true, limit: count, remaining: count, resetInMs: 0, retryInMs: 0 })),
  }));

/** A COUNTERS namespace whose calls `plan` answers (recordingLimiter in ../support/custom-gateway.ts wraps the real one the same way). */
function plannedCounters(plan: CallPlan): Env["COUNTERS"] {
  let calls = 0;
  const namespace = {
    jurisdiction: () => namespace,
    getByName: () => ({ decide: (batches: HitBatch[]) => plan(calls++, batches) }),
  };
  return namespace as unknown as Env["COUNTERS"];
}

describe("a client that outruns its counting", () => {
  it("is closed 1008 once more than 64 frames wait for their count; none of them reaches the upstream", async () => {
    // The upgrade's call is answered; every frame's call hangs (as long as the counter timeout allows).
    const counters = plannedCounters((index, batches) => (index === 0 ? Promise.resolve(admitted(batches)) : new Promise(() => {})));
    const { client, upstream } = await relayThrough({ COUNTERS: counters, COUNTER_TIMEOUT_MS: "120000" }).open();
    for (let i = 0; i < 100; i++) client.socket.send(`frame ${i}`);
    expect(await client.closed).toEqual({ code: 1008, reason: "More than 64 frames were waiting to be counted." });
    expect(await upstream.closed).toEqual({ code: 1001, reason: "More than 64 frames were waiting to be counted." });
    const reached: string[] = [];
    void upstream.next().then((frame) => reached.push(text(frame)));
    await sleep(50);
    expect(reached).toEqual([]);
  });
});

describe("client frames", () => {
  it("reach the upstream in the order sent, whatever each count's round trip to the counter", async () => {
    // The earlier a frame, the slower its counter call.
    const frames = 12;
    const counters = plannedCounters(async (index, batches) => {
      if (index > 0) await sleep((frames - index) * 15);
      return admitted(batches);
    });
    const { client, upstream } = await relayThrough({ COUNTERS: counters }).open();
    for (let i = 0; i < frames; i++) client.socket.send(i % 3 === 2 ? new Uint8Array([i]) : `frame ${i}`);
    const reached = [];
    for (let i = 0; i < frames; i++) reached.push(await upstream.next());
    expect(reached).toEqual(Array.from({ length: frames }, (_, i) => (i % 3 === 2 ? new Uint8Array([i]) : `frame ${i}`)));
    client.socket.close(1000, "");
    await upstream.closed;
  });
});

describe("the relay on its own (relayedSocket)", () => {
  it("forwards client frames in the order sent even when their counts complete out of order", async () => {
    // The counting layer answers one counter's calls in order; here each count is the test's, and
    // the earlier a frame, the later its count completes: counted concurrently, the last would pass first.
    const frames = 8;
    let counted = 0;
    const { 0: gatewayEnd, 1: far } = new WebSocketPair();
    const upstream = peerOf(far);
    const res = relayedSocket(new Response(null, { status: 101, webSocket: gatewayEnd }), undefined, {
      rule: { path: { kind: "exact", pattern: "/relay/live" }, protocol: "frames" },
      count: () => sleep((frames - counted++) * 20),
      idleMs: 60_000,
      maxPending: 64,
    });
    const client = acceptSocket(res);
    for (let i = 0; i < frames; i++) client.socket.send(`frame ${i}`);
    const reached = [];
    for (let i = 0; i < frames; i++) reached.push(await upstream.next());
    expect(reached).toEqual(Array.from({ length: frames }, (_, i) => `frame ${i}`));
    client.socket.close(1000, "");
    await upstream.closed;
  });

  it("closes the client 1013 and the upstream 1001 once its slot among the identity's open sockets is lost, and ends once", async () => {
    let lose!: () => void;
    let ends = 0;
    const { 0: gatewayEnd, 1: far } = new WebSocketPair();
    const upstream = peerOf(far);
    const res = relayedSocket(new Response(null, { status: 101, webSocket: gatewayEnd }), undefined, {
      rule: { path: { kind: "exact", pattern: "/relay/live" }, protocol: "frames" },
      count: async () => {},
      idleMs: 60_000,
      maxPending: 64,
      lost: new Promise<void>((resolve) => (lose = resolve)),
      onEnd: () => ends++,
    });
    const client = acceptSocket(res);
    client.socket.send("before");
    expect(await upstream.next()).toBe("before");
    lose();
    const reason = "This socket's place among its caller's open sockets lapsed; open it again.";
    expect(await client.closed).toEqual({ code: 1013, reason });
    expect(await upstream.closed).toEqual({ code: 1001, reason });
    expect(ends).toBe(1);
  });
});
