// Issue 32, finding 8: npm start's private port (wrangler dev behind the local edge) answers only
// requests the edge stamped with the session's LOCAL_EDGE_SECRET, so a client that finds it cannot
// pick its own CF-Connecting-IP, and with it a fresh counter.
import { describe, expect, it } from "vitest";
import hostedApiData from "../../../rules/hosted-api.json" with { type: "json" };
import { compileClassifier } from "../../../src/core/rules/classify.ts";
import { loadRuleTable } from "../../../src/core/rules/load.ts";
import { LOCAL_EDGE_HEADER } from "../../../src/gateway/local-edge-header.ts";
import { gatewayWith, recordingLimiter, recordingUpstream } from "../support/custom-gateway.ts";
import { freshIdentity } from "../support/requests.ts";
import { acceptSocket, upgradeHeaders } from "./support.ts";

const SECRET = "a-session-secret-of-forty-three-characters--";

/** The published hosted-API rows with a `frames` socket on /sessions/live, so an upgrade there is relayed. */
const withSocket = compileClassifier(
  loadRuleTable({ ...hostedApiData, sockets: [{ path: { kind: "exact", pattern: "/sessions/live" }, protocol: "frames" }] }),
);

function guarded() {
  const upstream = recordingUpstream();
  const limiter = recordingLimiter();
  const send = gatewayWith({ HOSTED_API: upstream.fetcher, COUNTERS: limiter.namespace, LOCAL_EDGE_SECRET: SECRET }, withSocket);
  return { upstream, limiter, send };
}

describe("with LOCAL_EDGE_SECRET set (npm start)", () => {
  it.each([
    ["no secret", {}],
    ["a wrong secret", { [LOCAL_EDGE_HEADER]: "guess" }],
    ["a secret one character off", { [LOCAL_EDGE_HEADER]: `${SECRET.slice(0, -1)}x` }],
    ["the secret with a suffix", { [LOCAL_EDGE_HEADER]: `${SECRET}x` }],
  ])("refuses a request with %s with 403, before any counter or upstream, whatever CF-Connecting-IP it sends", async (_, extra) => {
    const { upstream, limiter, send } = guarded();
    for (const ip of ["9.9.9.9", "10.0.0.1"]) {
      const res = await send("/runs/stats", { headers: { "cf-connecting-ip": ip, "x-api-key": freshIdentity().apiKey, ...extra } });
      expect(res.status).toBe(403);
      expect(res.headers.get("content-type")).toBe("application/problem+json");
      expect(((await res.json()) as { detail: string }).detail).toContain("private port");
    }
    // An upgrade and the admin host alike.
    expect((await send("/sessions/live", { headers: upgradeHeaders(extra) })).status).toBe(403);
    expect((await send("http://admin.localhost/_tollgate/rules", { headers: extra })).status).toBe(403);
    expect(limiter.calls.hits).toBe(0);
    expect(upstream.seen).toHaveLength(0);
  });

  it("serves a request the edge stamped, and never passes the secret upstream", async () => {
    const { upstream, send } = guarded();
    const who = freshIdentity();
    const res = await send("/runs/stats", { headers: { "cf-connecting-ip": who.ip, "x-api-key": who.apiKey, [LOCAL_EDGE_HEADER]: SECRET } });
    expect(res.status).toBe(200);
    expect(upstream.seen[0]!.headers.has(LOCAL_EDGE_HEADER)).toBe(false);
    const socket = await send("/sessions/live", { headers: upgradeHeaders({ "cf-connecting-ip": who.ip, [LOCAL_EDGE_HEADER]: SECRET }) });
    expect(upstream.seen[1]!.headers.has(LOCAL_EDGE_HEADER)).toBe(false);
    const peer = acceptSocket(socket);
    peer.socket.close(1000, "");
    await peer.closed;
  });
});

describe("without LOCAL_EDGE_SECRET (deployed, the tests)", () => {
  it("serves as before, and drops a client-sent edge header", async () => {
    const upstream = recordingUpstream();
    const send = gatewayWith({ HOSTED_API: upstream.fetcher });
    const res = await send("/runs/stats", { headers: { "x-api-key": freshIdentity().apiKey, [LOCAL_EDGE_HEADER]: "anything" } });
    expect(res.status).toBe(200);
    expect(upstream.seen[0]!.headers.has(LOCAL_EDGE_HEADER)).toBe(false);
  });
});
