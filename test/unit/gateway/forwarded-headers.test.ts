import { describe, expect, it } from "vitest";
import { prepareUpstreamHeaders } from "../../../src/gateway/forwarded-headers.ts";
import { downstreamHeaders } from "../../../src/gateway/hop-by-hop.ts";

const url = new URL("https://api.example.com:8443/runs?x=1");

/** The upstream's request headers as a Headers (as the runtime builds them from the lines). */
function sent(client: ConstructorParameters<typeof Headers>[0], edgeAddress: string | null = "203.0.113.7"): Headers {
  const sentHeaders = new Headers(client);
  const headers = new Headers(sentHeaders);
  const refused = prepareUpstreamHeaders(headers, sentHeaders, url, edgeAddress ?? undefined);
  if (refused !== undefined) throw new Error(refused);
  return headers;
}

describe("the upstream's request headers", () => {
  it("keep the client's own headers, identity included", () => {
    const headers = sent({ "x-api-key": "k", Accept: "application/json", "Content-Type": "text/plain" });
    expect(headers.get("x-api-key")).toBe("k");
    expect(headers.get("accept")).toBe("application/json");
    expect(headers.get("content-type")).toBe("text/plain");
  });

  it("drop underscore names, client-address and request-rewrite headers, whatever their case", () => {
    const headers = sent({
      x_api_key: "second",
      "X-Real-IP": "10.0.0.1",
      "True-Client-IP": "10.0.0.2",
      "X-Original-URL": "/admin",
      "Fastly-Client-IP": "10.0.0.3",
      "X-Forwarded-Port": "1",
    });
    for (const name of ["x_api_key", "x-original-url", "fastly-client-ip", "x-forwarded-port"]) expect(headers.has(name)).toBe(false);
    expect(headers.get("x-real-ip")).toBe("203.0.113.7");
    expect(headers.get("true-client-ip")).toBe("203.0.113.7");
  });

  it("replace client-sent forwarding headers, never join them", () => {
    const headers = sent({ "X-Forwarded-For": "10.9.9.9", "X-Forwarded-Host": "evil.example", "X-Forwarded-Proto": "http", Forwarded: "for=10.9.9.9" });
    expect(headers.get("x-forwarded-for")).toBe("203.0.113.7");
    expect(headers.get("x-forwarded-host")).toBe("api.example.com:8443");
    expect(headers.get("x-forwarded-proto")).toBe("https");
    expect(headers.get("forwarded")).toBe('for=203.0.113.7;host="api.example.com:8443";proto=https');
  });

  it("say no client address when the edge gave none, and bracket an IPv6 one", () => {
    const none = sent({ "x-forwarded-for": "10.9.9.9" }, null);
    expect(none.has("x-forwarded-for")).toBe(false);
    expect(none.has("x-real-ip")).toBe(false);
    expect(none.get("forwarded")).toBe('host="api.example.com:8443";proto=https');
    expect(sent({}, "2001:db8::1").get("forwarded")).toBe('for="[2001:db8::1]";host="api.example.com:8443";proto=https');
  });

  it("drop hop-by-hop headers and Accept-Encoding", () => {
    const headers = sent({
      "Keep-Alive": "timeout=5",
      TE: "trailers",
      Trailer: "x",
      Upgrade: "websocket",
      "Proxy-Authorization": "Basic abc",
      "Proxy-Authenticate": "Basic",
      "Accept-Encoding": "gzip",
      "Transfer-Encoding": "chunked",
    });
    expect([...headers.keys()].sort()).toEqual(["forwarded", "true-client-ip", "x-forwarded-for", "x-forwarded-host", "x-forwarded-proto", "x-real-ip"]);
  });

  it("drop the headers the client's Connection names, in any case, but never the gateway's own", () => {
    const headers = sent({ Connection: "X-Private-Hop, x-other ,keep-alive, X-Forwarded-For, forwarded", "x-private-hop": "1", "X-Other": "2", "x-kept": "3" });
    expect(headers.has("connection")).toBe(false);
    expect(headers.has("x-private-hop")).toBe(false);
    expect(headers.has("x-other")).toBe(false);
    expect(headers.get("x-kept")).toBe("3");
    // A client cannot strip what the gateway says about it.
    expect(headers.get("x-forwarded-for")).toBe("203.0.113.7");
    expect(headers.get("forwarded")).toContain("for=203.0.113.7");
  });

  it("tell an upstream the client's address only when its policy says so, and the public host only as X-Forwarded-Host where it reads it", () => {
    const policyOf = (clientAddress: boolean, forwardedHost: boolean) => {
      const client = new Headers({ "x-forwarded-for": "10.9.9.9", "x-real-ip": "10.9.9.8", forwarded: "for=10.9.9.7", "x-forwarded-host": "evil.example" });
      const headers = new Headers(client);
      expect(prepareUpstreamHeaders(headers, client, url, "203.0.113.7", { clientAddress, forwardedHost })).toBeUndefined();
      return Object.fromEntries(headers);
    };
    // The agent server at an origin: no address, no x-forwarded-*; Forwarded (which it does not store) names host and scheme.
    expect(policyOf(false, false)).toEqual({ forwarded: 'host="api.example.com:8443";proto=https' });
    expect(policyOf(false, true)).toEqual({
      forwarded: 'host="api.example.com:8443";proto=https',
      "x-forwarded-host": "api.example.com:8443",
      "x-forwarded-proto": "https",
    });
    expect(policyOf(true, false)).toEqual({
      forwarded: 'for=203.0.113.7;host="api.example.com:8443";proto=https',
      "x-forwarded-for": "203.0.113.7",
      "x-real-ip": "203.0.113.7",
      "true-client-ip": "203.0.113.7",
    });
  });

  const refusal = (connection: string) => {
    const sentHeaders = new Headers({ connection });
    return prepareUpstreamHeaders(new Headers(sentHeaders), sentHeaders, url, undefined);
  };

  it("refuse a Connection naming anything but header names, as Hono's strict proxy does", () => {
    expect(refusal("text/event-stream")).toBe("Invalid Connection header value: text/event-stream");
    // An empty option (a trailing comma) is not a token either.
    expect(refusal("close,")).toBe("Invalid Connection header value: ");
    expect(refusal("a b, c, d@e")).toBe("Invalid Connection header value: a b, d@e");
    expect(refusal("close")).toBeUndefined();
  });

  it("refuse a Connection naming an identity header: the upstream would act for another caller than the one counted", () => {
    expect(refusal("Upgrade, X-Api-Key")).toBe("Connection must not name x-api-key: the rate limit counts the request by it, so it is passed to the upstream.");
    expect(refusal("keep-alive, x-user-id")).toContain("Connection must not name x-user-id");
    expect(refusal("keep-alive, Upgrade")).toBeUndefined();
  });
});

describe("the client's response headers", () => {
  it("drop hop-by-hop headers and those the upstream's Connection names, ignoring options that are not names", () => {
    const upstream = new Headers({
      connection: "x-hop, not a name, X-Other",
      "x-hop": "1",
      "x-other": "2",
      "keep-alive": "timeout=5",
      "transfer-encoding": "chunked",
      upgrade: "h2c",
      te: "trailers",
      trailer: "x-sum",
      "proxy-authenticate": "Basic",
      "proxy-authorization": "Basic Zm9v",
      "x-kept": "3",
    });
    expect([...downstreamHeaders(upstream, undefined).keys()]).toEqual(["x-kept"]);
  });

  it("keep Content-Encoding and Content-Length: the body goes on as the upstream encoded it", () => {
    const headers = downstreamHeaders(new Headers({ "content-encoding": "gzip", "content-length": "10", "content-type": "text/plain" }), undefined);
    expect([...headers.keys()]).toEqual(["content-encoding", "content-length", "content-type"]);
    expect(downstreamHeaders(new Headers({ "content-length": "10" }), undefined).get("content-length")).toBe("10");
  });

  it("carry the rate-limit headers over the upstream's own, and every Set-Cookie line", () => {
    const upstream = new Headers([
      ["ratelimit", "forged"],
      ["set-cookie", "a=1"],
      ["set-cookie", "b=2"],
    ]);
    const headers = downstreamHeaders(upstream, { ratelimit: '"r";r=1;t=2', "ratelimit-policy": '"r";q=2;w=10' });
    expect(headers.get("ratelimit")).toBe('"r";r=1;t=2');
    expect(headers.get("ratelimit-policy")).toBe('"r";q=2;w=10');
    expect(headers.getSetCookie()).toEqual(["a=1", "b=2"]);
    // The upstream's headers are left as they were.
    expect(upstream.get("ratelimit")).toBe("forged");
  });
});
