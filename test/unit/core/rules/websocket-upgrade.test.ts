import { describe, expect, it } from "vitest";
import { hostedApiTable } from "../../../../src/core/rules/hosted-api.ts";
import { readRequest } from "../../../../src/core/rules/read-request.ts";
import { readUpgrade } from "../../../../src/core/rules/websocket-upgrade.ts";

const read = (method: string, upgrade: string, headers: Record<string, string> = {}, search = "") => readUpgrade(method, upgrade, new Headers(headers), search);

describe("readUpgrade: which upgrades the gateway relays as WebSockets", () => {
  it.each(["websocket", "WebSocket", "  WEBSOCKET "])("Upgrade: %j on a GET is a WebSocket upgrade", (upgrade) => {
    expect(read("GET", upgrade)).toEqual({ ok: true, websocket: true });
  });

  it.each(["h2c", "websocket, foo", "foo, websocket", "websocket/13", ""])("Upgrade: %j is none (dropped as hop-by-hop)", (upgrade) => {
    expect(read("GET", upgrade)).toEqual({ ok: true, websocket: false });
    // Not a WebSocket upgrade: nothing else about it is refused here.
    expect(read("POST", upgrade, { "sec-websocket-protocol": "x" }, "?token=t")).toEqual({ ok: true, websocket: false });
  });

  it.each(["POST", "PUT", "DELETE", "OPTIONS", "HEAD"])("refuses a %s WebSocket upgrade", (method) => {
    expect(read(method, "websocket")).toEqual({ ok: false, detail: expect.stringContaining(`must use GET (RFC 6455), not ${method}`) });
  });

  it("refuses a subprotocol offer: a token can ride in one", () => {
    expect(read("GET", "websocket", { "sec-websocket-protocol": "bearer, abc" })).toMatchObject({
      ok: false,
      detail: expect.stringContaining("Sec-WebSocket-Protocol"),
    });
  });

  it.each([
    "api_key",
    "API-KEY",
    "x-api-key",
    "x_api_key",
    "apikey",
    "token",
    "access_token",
    "auth",
    "Authorization",
    "key",
    "jwt",
    "tenant_id",
    "X-Tenant-Id",
  ])("refuses ?%s=... (a credential in the query)", (name) => {
    expect(read("GET", "websocket", {}, `?since=1&${name}=v`)).toEqual({
      ok: false,
      detail: expect.stringContaining(`Query parameter ${name} is not accepted`),
    });
  });

  it("lets other query parameters through", () => {
    expect(read("GET", "websocket", {}, "?since=4&channels=values&keyword=x")).toEqual({ ok: true, websocket: true });
  });
});

describe("readRequest reads the upgrade before any counter", () => {
  it("marks a WebSocket upgrade, and only one", () => {
    const headers = (h: Record<string, string>) => new Headers(h);
    expect(readRequest(hostedApiTable, { method: "GET", rawPath: "/runs/stats", headers: headers({ upgrade: "websocket" }) })).toMatchObject({
      ok: true,
      websocket: true,
    });
    expect(readRequest(hostedApiTable, { method: "GET", rawPath: "/runs/stats", headers: headers({ upgrade: "h2c" }) })).toMatchObject({
      ok: true,
      websocket: false,
    });
    expect(readRequest(hostedApiTable, { method: "GET", rawPath: "/runs/stats", headers: headers({}) })).toMatchObject({ ok: true, websocket: false });
  });

  it("refuses with 400 what readUpgrade refuses", () => {
    const reading = readRequest(hostedApiTable, {
      method: "GET",
      rawPath: "/runs/stats",
      headers: new Headers({ upgrade: "websocket" }),
      search: "?api_key=k",
    });
    expect(reading).toMatchObject({ ok: false, status: 400, detail: expect.stringContaining("Query parameter api_key") });
  });
});
