// Issue 42: what one identity holds open is capped. A concurrency row caps the sockets and event
// streams one identity holds at once, exactly across the gateway's isolates (slots objects); a
// request past the cap is refused 429 with Retry-After before any 101 or stream, and a slot comes
// back when its socket closes or its stream ends.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { compileClassifier } from "../../../src/core/rules/classify.ts";
import { loadRuleTable } from "../../../src/core/rules/load.ts";
import { gatewayWith } from "../support/custom-gateway.ts";
import { freshIdentity, keyed } from "../support/requests.ts";
import { commandSocket, upgradeHeaders } from "./support.ts";

const every = (count: number, interval = 60) => ({ us: { count, interval }, eu: { count, interval } });
const held = (count: number) => ({ us: { count }, eu: { count } });
const streamEvents = { kind: "template", pattern: "/threads/{uuid}/stream/events" } as const;

/** The agent-server emulator behind a table of its own: two sockets or streams per key, one per address. */
const table = loadRuleTable({
  table: "socket-cap-test",
  sockets: [{ path: streamEvents, protocol: "agent-protocol-v2", commandsAs: { method: "POST", path: "/threads/{uuid}/commands" } }],
  rules: [
    { id: 1, name: "default-key", category: "Default", tier: "default", match: [{}], identity: "api-key", limits: every(1000) },
    { id: 2, name: "everyone-ip", category: "Catch-all", tier: "catch-all", match: [{}], identity: "ip", limits: every(1000) },
  ],
  concurrency: [
    {
      id: 3,
      name: "held-key",
      category: "Held open",
      match: [
        { method: "GET", path: streamEvents },
        { method: "POST", path: streamEvents },
      ],
      identity: "api-key",
      limits: held(2),
    },
    { id: 4, name: "held-ip", category: "Held open", match: [{ method: "GET", path: streamEvents }], identity: "ip", limits: held(1) },
  ],
});
// Two gateways, as two isolates of one region: the cap is the slots object's, not an isolate's.
const [first, second] = ["cap-a", "cap-b"].map(() => gatewayWith({ HOSTED_API: env.AGENT_SERVER }, compileClassifier(table)));

const thread = () => crypto.randomUUID();
const open = (send: typeof first, headers: Record<string, string>, id = thread()) =>
  send!(`/threads/${id}/stream/events`, { headers: upgradeHeaders(headers) });

describe("open sockets per identity", () => {
  it("are capped across isolates: the third is refused 429 with Retry-After before any 101, and a closed one gives its slot back", async () => {
    const who = freshIdentity();
    const a = await open(first, keyed(who));
    expect(a.status).toBe(101);
    expect(a.headers.get("ratelimit-policy")).toBe('"default-key";q=1000;w=60, "held-key";q=2;qu="concurrent-requests"');
    expect(a.headers.get("ratelimit")).toMatch(/^"default-key";r=\d+;t=\d+, "held-key";r=1$/);
    const b = await open(second, keyed(who));
    expect(b.status).toBe(101);
    expect(b.headers.get("ratelimit")).toMatch(/, "held-key";r=0$/);

    const refused = await open(first, keyed(who));
    expect(refused.status).toBe(429);
    expect(refused.webSocket).toBeNull();
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(refused.headers.get("ratelimit-policy")).toContain('"held-key";q=2;qu="concurrent-requests"');
    expect(refused.headers.get("content-type")).toBe("application/problem+json");
    expect(await refused.json()).toMatchObject({ status: 429, "violated-policies": ["held-key"] });

    // Another key is not held back by this one's sockets.
    const other = await open(second, keyed(freshIdentity()));
    expect(other.status).toBe(101);

    const socketA = commandSocket(a);
    socketA.close();
    await socketA.closed;
    // The slot goes back in the background: the next upgrade finds it free soon after.
    await expect.poll(async () => (await open(second, keyed(who))).status, { timeout: 10_000 }).toBe(101);
    for (const res of [b, other]) commandSocket(res).close();
  });

  it("caps a keyless caller by its address", async () => {
    const who = freshIdentity();
    const address = { "cf-connecting-ip": who.ip };
    const a = await open(first, address);
    expect(a.status).toBe(101);
    expect((await open(second, address)).status).toBe(429);
    commandSocket(a).close();
  });

  it("counts an event stream (SSE) among the sockets, and gives its slot back when the stream ends", async () => {
    const who = freshIdentity();
    const id = thread();
    const socket = await open(first, keyed(who), id);
    expect(socket.status).toBe(101);
    // run.start makes the thread, so its event stream is served.
    const ws = commandSocket(socket);
    expect((await ws.command("run.start", { assistant_id: "agent", input: { messages: [{ role: "user", content: "hi" }] } })).type).toBe("success");
    const stream = await first!(`/threads/${id}/stream/events`, {
      method: "POST",
      headers: { ...keyed(who), "content-type": "application/json" },
      body: JSON.stringify({ channels: ["lifecycle"] }),
    });
    expect(stream.status).toBe(200);
    expect(stream.headers.get("ratelimit-policy")).toContain('"held-key";q=2;qu="concurrent-requests"');
    // The socket and the stream hold both of the key's slots.
    expect((await open(second, keyed(who))).status).toBe(429);
    // The client leaves the stream: its slot comes back.
    await stream.body!.cancel();
    await expect.poll(async () => (await open(second, keyed(who))).status, { timeout: 10_000 }).toBe(101);
    ws.close();
  });
});
