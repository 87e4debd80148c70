// Issues 31 and 42: deployed, the gateway reaches its upstream on an origin URL; a WebSocket is
// asked of it with `fetch` and the Upgrade header, and relayed as through a service binding, both
// ends held by the Worker. The origin is a real WebSocket server (test/setup/websocket-origin.ts);
// the hosted API's published rows are given a `frames` socket on /sessions/live, as the published
// table declares none (every client frame counted as the upgrade itself).
import { env } from "cloudflare:workers";
import { inject } from "vitest";
import { describe, expect, it } from "vitest";
import hostedApiData from "../../../rules/hosted-api.json" with { type: "json" };
import { compileClassifier } from "../../../src/core/rules/classify.ts";
import { loadRuleTable } from "../../../src/core/rules/load.ts";
import type { Region } from "../../../src/core/rules/schema.ts";
import { publishedRow } from "../../support/rows.ts";
import { gatewayWith } from "../support/custom-gateway.ts";
import { freshIdentity, keyed } from "../support/requests.ts";
import { acceptSocket, ruleNameOf, upgradeHeaders } from "./support.ts";

const origin = inject("websocketOrigin");
const upgradesSeen = async () => (await (await fetch(`${origin}/__upgrades`)).json()) as Array<Record<string, string>>;

const withSocket = compileClassifier(
  loadRuleTable(
    { ...hostedApiData, sockets: [{ path: { kind: "exact", pattern: "/sessions/live" }, protocol: "frames" }] },
    "rules/hosted-api.json with a frames socket",
  ),
);
const send = gatewayWith({ HOSTED_API_ORIGIN: origin }, withSocket);
/** The EU environment tells no upstream the client's address (wrangler.toml FORWARD_CLIENT_ADDRESS = "none"). */
const addressTold = env.REGION !== "eu";

describe("a WebSocket to an origin URL (deployed)", () => {
  it("is relayed: 101 with its RateLimit headers, frames both ways, each client frame counted, closes from either side", async () => {
    const who = freshIdentity();
    const { count } = publishedRow(25).limits[env.REGION as Region];
    const res = await send("/sessions/./live?since=2", {
      headers: upgradeHeaders(keyed(who, { upgrade: "WebSocket", connection: "keep-alive, Upgrade", "x-forwarded-for": "6.6.6.6" })),
    });
    expect(ruleNameOf(res)).toBe("default-key");
    expect(res.headers.get("ratelimit")).toBe(`"default-key";r=${count - 1};t=10`);
    const peer = acceptSocket(res);
    peer.socket.send("hello");
    expect(await peer.next()).toBe("hello");
    peer.socket.send(new Uint8Array([9, 8, 7, 0, 255]));
    expect(await peer.next()).toEqual(new Uint8Array([9, 8, 7, 0, 255]));
    peer.socket.close(4001, "bye");
    expect(await peer.closed).toEqual({ code: 4001, reason: "bye" });
    // Two frames, two units; the origin's echoes none.
    const after = await send("/sessions/live", { headers: keyed(who) });
    expect(after.headers.get("ratelimit")).toBe(`"default-key";r=${count - 4};t=10`);

    const seen = (await upgradesSeen()).find((headers) => headers["x-api-key"] === who.apiKey)!;
    expect(seen[":path"]).toBe("/sessions/live?since=2");
    // The edge's address where the region tells it; in the EU neither the edge's nor the client's.
    const address = addressTold ? who.ip : undefined;
    expect([seen["x-forwarded-for"], seen["x-real-ip"], seen["true-client-ip"]]).toEqual([address, address, address]);

    const second = acceptSocket(await send("/sessions/live", { headers: upgradeHeaders(keyed(freshIdentity())) }));
    second.socket.send("close 4403 forbidden");
    expect(await second.closed).toEqual({ code: 4403, reason: "forbidden" });
  });

  it("whose origin drops the connection without a close is closed 1011 for the client, as a failed upstream", async () => {
    // workerd reports the drop as a close 1006 with no error event: the relay must not pass it as a clean close without a code.
    const peer = acceptSocket(await send("/sessions/live", { headers: upgradeHeaders(keyed(freshIdentity())) }));
    peer.socket.send("terminate");
    expect(await peer.closed).toEqual({ code: 1011, reason: "The upstream's socket failed." });
  });

  it("is refused 400 where no socket rule is, before the origin sees it", async () => {
    const who = freshIdentity();
    const published = gatewayWith({ HOSTED_API_ORIGIN: origin });
    const res = await published("/sessions/live", { headers: upgradeHeaders(keyed(who)) });
    expect(res.status).toBe(400);
    expect(res.webSocket).toBeNull();
    expect((await upgradesSeen()).some((headers) => headers["x-api-key"] === who.apiKey)).toBe(false);
  });
});
