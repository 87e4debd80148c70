// Issue 43, "Transparent forwarding": the path forwarded as the client sent it, while the gateway
// counts it as the upstream reads it (src/core/rules/path-spelling.ts). Against the open-source
// agent server (JS, Hono with strict routing) behind npm start: every spelling answered as direct,
// or refused 400 by the gateway where direct is an error too; never a route's answer where direct
// found none (the canonical path forwarded had `/ok/` and `/assistants/agent%2Fgraph` answered 200).
// Each request sent as raw bytes (node:http), so no client resolves or re-encodes the path first.
import { describe, expect, it } from "vitest";
import { freshKey, realServerAndGateway } from "./support.ts";
import { timedRequest, type TimedAnswer } from "./timed.ts";

// This file's ports (20100-20199).
const both = realServerAndGateway({ server: 20110, edge: 20111, private: 20112 });

async function eachWay(method: string, path: string): Promise<{ direct: TimedAnswer; through: TimedAnswer }> {
  const request = { method, headers: { "accept-encoding": "identity", "x-api-key": freshKey() }, ...(method === "POST" && { body: {} }) };
  const [direct, through] = await Promise.all([
    timedRequest(`${both().direct}${path}`, request).answer,
    timedRequest(`${both().through}${path}`, request).answer,
  ]);
  return { direct, through };
}

describe("odd spellings of a path: the server's own answer, or the gateway's refusal (400), never another route's", () => {
  it.each([
    ["GET", "/ok/"],
    ["GET", "//ok"],
    ["GET", "/ok%2F"],
    ["GET", "/assistants/agent%2Fgraph"],
    ["GET", "/assistants/agent%2F"],
    ["POST", "/threads%2Fsearch"],
    ["POST", "/threads/search/"],
    ["GET", "/info/"],
  ])("%s %s: direct a 4xx; through the gateway 400 {detail} naming what to send, before the server", async (method, path) => {
    const { direct, through } = await eachWay(method, path);
    expect(direct.status).toBeGreaterThanOrEqual(400);
    expect(direct.status).toBeLessThan(500);
    expect({ path, status: through.status }).toEqual({ path, status: 400 });
    expect(JSON.parse(await through.text)).toEqual({ detail: expect.stringMatching(/Send "\/[^"]*" instead\.|encoded slash \(%2F\)/) });
  });

  it.each([
    ["GET", "/ok"],
    ["GET", "/in%66o"],
    ["POST", "/%61ssistants/search"],
    ["POST", "/threads/search"],
    ["GET", "/assistants/%61gent"],
    ["GET", "/assistants/no%20such%3Aassistant"],
    ["GET", "/threads/00000000-0000-4000-8000-00000000000A"],
    ["GET", "/threads/{00000000-0000-4000-8000-00000000000a}"],
    ["GET", "/assistants/agent%252Fgraph"],
  ])("%s %s: forwarded as sent, answered as direct", async (method, path) => {
    const { direct, through } = await eachWay(method, path);
    expect({ path, status: through.status, body: await through.text }).toEqual({ path, status: direct.status, body: await direct.text });
  });

  it("a thread's id in another spelling reaches the server as sent: its own answer, not the canonical id's thread", async () => {
    const created = await fetch(`${both().direct}/threads`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    const { thread_id: id } = (await created.json()) as { thread_id: string };
    for (const spelling of [id, id.toUpperCase(), `%7B${id}%7D`, id.replaceAll("-", "")]) {
      const { direct, through } = await eachWay("GET", `/threads/${spelling}`);
      expect({ spelling, status: through.status, body: await through.text }).toEqual({ spelling, status: direct.status, body: await direct.text });
    }
  });
});
