// Issue 42: a socket is no tunnel around the limits. Each command a protocol v2 socket carries is
// counted as its HTTP twin (POST /threads/{id}/commands) on the socket's identity before it
// reaches the upstream; an exhausted counter answers that command in-band and the socket stays
// usable; what the gateway cannot read ends the socket or is refused in-band, counted.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { compileClassifier } from "../../../src/core/rules/classify.ts";
import { loadRuleTable } from "../../../src/core/rules/load.ts";
import { gatewayWith } from "../support/custom-gateway.ts";
import { freshIdentity, keyed } from "../support/requests.ts";
import { commandSocket, upgradeHeaders } from "./support.ts";

const limit = (count: number, interval = 60) => ({ us: { count, interval }, eu: { count, interval } });

/**
 * A table whose agent-protocol-v2 socket lives on the hosted API's upstream (the agent-server
 * emulator bound in its place below): commands on a thread are 3 per minute per key, 2 per IP.
 */
const table = loadRuleTable({
  table: "socket-commands-test",
  sockets: [
    {
      path: { kind: "template", pattern: "/threads/{uuid}/stream/events" },
      protocol: "agent-protocol-v2",
      commandsAs: { method: "POST", path: "/threads/{uuid}/commands" },
    },
  ],
  rules: [
    {
      id: 1,
      name: "commands-key",
      category: "Commands",
      tier: "specific",
      match: [{ method: "POST", path: { kind: "template", pattern: "/threads/{uuid}/commands" } }],
      identity: "api-key",
      limits: limit(3),
    },
    {
      id: 2,
      name: "commands-ip",
      category: "Commands",
      tier: "specific",
      match: [{ method: "POST", path: { kind: "template", pattern: "/threads/{uuid}/commands" } }],
      identity: "ip",
      limits: limit(2),
    },
    { id: 3, name: "default-key", category: "Default", tier: "default", match: [{}], identity: "api-key", limits: limit(1000) },
    { id: 4, name: "everyone-ip", category: "Catch-all", tier: "catch-all", match: [{}], identity: "ip", limits: limit(1000) },
  ],
});
const send = gatewayWith({ HOSTED_API: env.AGENT_SERVER }, compileClassifier(table));

async function newThread(headers: Record<string, string>): Promise<string> {
  const res = await send("/threads", { method: "POST", headers: { ...headers, "content-type": "application/json" }, body: "{}" });
  expect(res.status).toBe(200);
  return ((await res.json()) as { thread_id: string }).thread_id;
}

async function openOn(thread: string, headers: Record<string, string>) {
  const res = await send(`/threads/${thread}/stream/events`, { headers: upgradeHeaders(headers) });
  expect(res.headers.get("ratelimit-policy")).toMatch(/^"default-key"|^"everyone-ip"/);
  return commandSocket(res);
}

describe("commands on a protocol v2 socket", () => {
  it("are counted on the socket's key as POST /threads/{id}/commands: past the limit each is answered in-band, and the socket stays usable", async () => {
    const who = freshIdentity();
    const thread = await newThread(keyed(who));
    const socket = await openOn(thread, keyed(who));
    const answers = [];
    for (let i = 0; i < 5; i++) answers.push(await socket.command("agent.getTree"));
    expect(answers.map((a) => a.type)).toEqual(["success", "success", "success", "error", "error"]);
    const refused = answers[3];
    expect(refused).toMatchObject({ type: "error", id: 4, error: "permission_denied", status: 429 });
    expect(refused.message).toMatch(/Rate limit "commands-key".*Retry after \d+ seconds/);
    expect(refused.retry_after).toBeGreaterThan(0);
    expect(refused.ratelimit).toMatch(/^"commands-key";r=0;t=\d+$/);
    // The key's HTTP twin meets the same exhausted counter.
    const http = await send(`/threads/${thread}/commands`, {
      method: "POST",
      headers: { ...keyed(who), "content-type": "application/json" },
      body: JSON.stringify({ id: 1, method: "agent.getTree", params: {} }),
    });
    expect(http.status).toBe(429);
    expect(http.headers.get("ratelimit-policy")).toBe('"commands-key";q=3;w=60');
    socket.close();
  });

  it("come off the same counter as the key's HTTP commands", async () => {
    const who = freshIdentity();
    const thread = await newThread(keyed(who));
    const http = await send(`/threads/${thread}/commands`, {
      method: "POST",
      headers: { ...keyed(who), "content-type": "application/json" },
      body: JSON.stringify({ id: 1, method: "agent.getTree", params: {} }),
    });
    expect(http.headers.get("ratelimit")).toBe('"commands-key";r=2;t=60');
    const socket = await openOn(thread, keyed(who));
    expect((await socket.command("agent.getTree")).type).toBe("success");
    expect((await socket.command("agent.getTree")).type).toBe("success");
    expect(await socket.command("agent.getTree")).toMatchObject({ type: "error", status: 429 });
    socket.close();
  });

  it("on a keyless socket are counted on its address, and a refused run.start starts no run", async () => {
    const who = freshIdentity();
    const address = { "cf-connecting-ip": who.ip };
    const thread = await newThread(keyed(who));
    const socket = await openOn(thread, address);
    const answers = [];
    for (let i = 0; i < 4; i++)
      answers.push(await socket.command("run.start", { assistant_id: "agent", input: { messages: [{ role: "user", content: `hi ${i}` }] } }));
    expect(answers.map((a) => (a.type === "error" ? a.status : a.type))).toEqual(["success", "success", 429, 429]);
    expect(answers[2].message).toMatch(/"commands-ip"/);
    const runs = await send(`/threads/${thread}/runs`, { headers: keyed(who) });
    expect(((await runs.json()) as unknown[]).length).toBe(2);
    // The address's HTTP commands afterwards are refused too.
    const http = await send(`/threads/${thread}/commands`, {
      method: "POST",
      headers: { ...address, "content-type": "application/json" },
      body: JSON.stringify({ id: 1, method: "agent.getTree", params: {} }),
    });
    expect(http.status).toBe(429);
    socket.close();
  });

  it("a frame that is not JSON is counted and answered in-band invalid_argument, never forwarded", async () => {
    const who = freshIdentity();
    const thread = await newThread(keyed(who));
    const socket = await openOn(thread, keyed(who));
    socket.raw("not json");
    expect(await socket.next()).toEqual({ type: "error", id: null, error: "invalid_argument", message: expect.stringContaining("not JSON") });
    expect((await socket.command("agent.getTree")).type).toBe("success");
    expect((await socket.command("agent.getTree")).type).toBe("success");
    // The unreadable frame took the first of the key's three units.
    expect(await socket.command("agent.getTree")).toMatchObject({ type: "error", status: 429 });
    socket.close();
  });

  it.each([
    ["a binary frame", () => new Uint8Array([123, 125]), 1003],
    ["a frame over 1 MiB", () => JSON.stringify({ id: 1, method: "run.start", params: { pad: "x".repeat(1024 * 1024) } }), 1009],
  ])("%s ends the socket with its close code and reaches no upstream", async (_name, frame, code) => {
    const who = freshIdentity();
    const thread = await newThread(keyed(who));
    const socket = await openOn(thread, keyed(who));
    socket.raw(frame());
    expect((await socket.closed).code).toBe(code);
  });
});
