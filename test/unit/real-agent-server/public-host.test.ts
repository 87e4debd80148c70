// The public host reaches the real agent server (issue 43, "Transparent forwarding"): with
// AGENT_SERVER_HOST=public the gateway makes the upstream request for the URL the client called
// and routes it to the origin (deployed, Cloudflare's cf.resolveOverride; under npm start, the
// local edge's origin connector), so the server, which builds URLs from `Host`, names the
// gateway's host, and nothing else it sees or stores changes.
import { describe, expect, it } from "vitest";
import { realServerAndGateway, say } from "./support.ts";

// This file's ports (the transparent-forwarding range, 20000-20099).
const both = realServerAndGateway({ server: 20010, edge: 20011, private: 20012 }, { vars: { AGENT_SERVER_HOST: "public" } });

describe("AGENT_SERVER_HOST=public: the agent server is told the host the client called", () => {
  it("POST /ui/agent: the script URL it builds names the gateway's host, as direct names the server's", async () => {
    for (const base of [both().direct, both().through]) {
      const res = await fetch(`${base}/ui/agent`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ name: "card" }) });
      expect(res.status).toBe(200);
      const src = /src="([^"]+)"/.exec(await res.text())?.[1];
      expect(new URL(src!).host).toBe(new URL(base).host);
    }
  });

  it("what the server receives is the client's request: its echo of the headers has the public Host and none of the gateway's own", async () => {
    const res = await fetch(`${both().through}/echo-request/here?x=1`, { headers: { "x-api-key": "public-host-test", "x-custom": "kept" } });
    expect(res.status).toBe(200);
    const seen = (await res.json()) as { path: string; query: string; headers: Record<string, string> };
    expect(seen.path).toBe("/echo-request/here");
    expect(seen.query).toBe("?x=1");
    expect(seen.headers.host).toBe(new URL(both().through).host);
    expect(seen.headers["x-custom"]).toBe("kept");
    expect(Object.keys(seen.headers).filter((name) => /^x-(forwarded|real-ip|tollgate)/.test(name))).toEqual([]);
  });

  it("a run through it stores the same checkpoint metadata keys as direct", async () => {
    const keys = await Promise.all(
      [both().direct, both().through].map(async (base) => {
        const thread = (await (await fetch(`${base}/threads`, { method: "POST", body: "{}", headers: { "content-type": "application/json" } })).json()) as {
          thread_id: string;
        };
        const wait = await fetch(`${base}/threads/${thread.thread_id}/runs/wait`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ assistant_id: "agent", input: say("where am I") }),
        });
        expect(wait.status).toBe(200);
        await wait.arrayBuffer();
        const history = (await (await fetch(`${base}/threads/${thread.thread_id}/history`)).json()) as Array<{ metadata: Record<string, unknown> }>;
        return [...new Set(history.flatMap((checkpoint) => Object.keys(checkpoint.metadata)))].sort();
      }),
    );
    expect(keys[1]).toEqual(keys[0]);
  });
});
