// Issue 31: deployed, the gateway reaches its upstream on an origin URL; a WebSocket is asked of
// it with `fetch` and the Upgrade header, and relayed as through a service binding. The origin is
// a real WebSocket server (test/setup/websocket-origin.ts).
import { inject } from "vitest";
import { describe, expect, it } from "vitest";
import { gatewayWith } from "../support/custom-gateway.ts";
import { freshIdentity, keyed } from "../support/requests.ts";
import { acceptSocket, ruleNameOf, upgradeHeaders } from "./support.ts";

const origin = inject("websocketOrigin");
const upgradesSeen = async () => (await (await fetch(`${origin}/__upgrades`)).json()) as Array<Record<string, string>>;

describe("a WebSocket to an origin URL (deployed)", () => {
  it("is relayed: 101 with its RateLimit headers, frames both ways, closes from either side", async () => {
    const send = gatewayWith({ HOSTED_API_ORIGIN: origin });
    const who = freshIdentity();
    const res = await send("/sessions/./live?since=2", { headers: upgradeHeaders(keyed(who, { upgrade: "WebSocket", connection: "keep-alive, Upgrade" })) });
    expect(ruleNameOf(res)).toBe("default-key");
    const peer = acceptSocket(res);
    peer.socket.send("hello");
    expect(await peer.next()).toBe("hello");
    peer.socket.send(new Uint8Array([9, 8, 7, 0, 255]));
    expect(await peer.next()).toEqual(new Uint8Array([9, 8, 7, 0, 255]));
    peer.socket.close(4001, "bye");
    expect(await peer.closed).toEqual({ code: 4001, reason: "bye" });

    const seen = (await upgradesSeen()).find((headers) => headers["x-api-key"] === who.apiKey)!;
    expect(seen[":path"]).toBe("/sessions/live?since=2");
    expect(seen["x-forwarded-for"]).toBe(who.ip);

    const second = acceptSocket(await send("/sessions/live", { headers: upgradeHeaders(keyed(freshIdentity())) }));
    second.socket.send("close 4403 forbidden");
    expect(await second.closed).toEqual({ code: 4403, reason: "forbidden" });
  });
});
