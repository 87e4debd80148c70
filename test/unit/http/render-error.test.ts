import { HTTPException } from "hono/http-exception";
import { afterEach, describe, expect, it, vi } from "vitest";
import { GatewayError, QUOTA_EXCEEDED, type ErrorKind } from "../../../src/http/gateway-error.ts";
import { renderError } from "../../../src/http/render-error.ts";
import { SettingError } from "../../../src/http/setting-error.ts";

/*
 * Every kind of GatewayError as clients receive it, byte for byte: status, headers (content type
 * included) and the body's text. These are the answers the gateway and the admin API gave before
 * the one error type (each site built its own), so a change here changes what clients read.
 */

async function wire(response: Response): Promise<{ status: number; headers: Record<string, string>; body: string }> {
  return { status: response.status, headers: Object.fromEntries(response.headers), body: await response.text() };
}

const PROBLEM = "application/problem+json";
const JSON_TYPE = "application/json";

describe("renderError: one shape per kind", () => {
  it.each<[ErrorKind, string, number, string]>([
    ["unauthorized", "Unauthorized", 401, "u"],
    ["forbidden", "Forbidden", 403, "f"],
    ["not-found", "Not Found", 404, "Not Found"],
    ["unsupported-media-type", "Unsupported Media Type", 415, "Send the body as application/json."],
    ["misdirected", "Misdirected Request", 421, "This gateway does not serve the host x.example."],
    ["throttled", "Too Many Requests", 429, "t"],
    ["misconfigured", "Gateway misconfigured", 500, "m"],
    ["upstream-unreachable", "Upstream unreachable", 502, "The hosted-api upstream could not be reached."],
    ["limiter-unavailable", "Rate limiter unavailable", 503, "l"],
    ["not-ready", "Gateway not ready", 503, "n"],
    ["upstream-timeout", "Upstream timed out", 504, "The hosted-api upstream did not answer within 30 ms."],
  ])("%s: a problem titled %s, status %i", async (kind, title, status, detail) => {
    const error = new GatewayError(kind as Exclude<ErrorKind, "validation">, detail);
    expect(error.status).toBe(status);
    expect(await wire(renderError(error))).toEqual({
      status,
      headers: { "content-type": PROBLEM },
      body: `{"type":"about:blank","title":${JSON.stringify(title)},"status":${status},"detail":${JSON.stringify(detail)}}`,
    });
  });

  it("quota-exceeded: the IANA type first, its extension after detail, the rate-limit headers and Retry-After", async () => {
    const error = new GatewayError("quota-exceeded", 'Rate limit "x" ... Retry after 7 seconds.', {
      headers: { "ratelimit-policy": '"x";q=1;w=10', ratelimit: '"x";r=0;t=7', "retry-after": "7" },
      extensions: { "violated-policies": ["x"] },
    });
    expect(await wire(renderError(error))).toEqual({
      status: 429,
      headers: { "content-type": PROBLEM, "ratelimit-policy": '"x";q=1;w=10', ratelimit: '"x";r=0;t=7', "retry-after": "7" },
      body: `{"type":"${QUOTA_EXCEEDED}","title":"Request quota exceeded","status":429,"detail":"Rate limit \\"x\\" ... Retry after 7 seconds.","violated-policies":["x"]}`,
    });
  });

  it("unauthorized carries its challenge", async () => {
    const response = renderError(new GatewayError("unauthorized", "u", { headers: { "www-authenticate": 'Bearer realm="tollgate admin"' } }));
    expect(Object.fromEntries(response.headers)).toEqual({ "content-type": PROBLEM, "www-authenticate": 'Bearer realm="tollgate admin"' });
  });

  it('bad-request: the hosted API\'s own 400 {"detail": ...}, with the headers it is given', async () => {
    expect(await wire(renderError(new GatewayError("bad-request", "GET requests must not have a body")))).toEqual({
      status: 400,
      headers: { "content-type": JSON_TYPE },
      body: '{"detail":"GET requests must not have a body"}',
    });
    const withHeaders = renderError(new GatewayError("bad-request", "c", { headers: { "ratelimit-policy": "p" } }));
    expect(Object.fromEntries(withHeaders.headers)).toEqual({ "content-type": JSON_TYPE, "ratelimit-policy": "p" });
  });

  it('unprocessable: 422 {"detail": "..."}', async () => {
    expect(await wire(renderError(new GatewayError("unprocessable", "the gateway would refuse this request with 400: x")))).toEqual({
      status: 422,
      headers: { "content-type": JSON_TYPE },
      body: '{"detail":"the gateway would refuse this request with 400: x"}',
    });
  });

  it("validation: FastAPI's 422 list as it is given", async () => {
    const error = new GatewayError("validation", [{ loc: ["body"], msg: "JSON decode error", type: "json_invalid" }]);
    expect(error.status).toBe(422);
    expect(await wire(renderError(error))).toEqual({
      status: 422,
      headers: { "content-type": JSON_TYPE },
      body: '{"detail":[{"loc":["body"],"msg":"JSON decode error","type":"json_invalid"}]}',
    });
  });
});

describe("renderError: what is not a GatewayError", () => {
  afterEach(() => vi.restoreAllMocks());

  it("a SettingError: misconfigured (500), or not ready (503, Retry-After 60), naming the setting", async () => {
    expect(await wire(renderError(new SettingError("UPSTREAM_HOSTS", "UPSTREAM_HOSTS is bad")))).toEqual({
      status: 500,
      headers: { "content-type": PROBLEM },
      body: '{"type":"about:blank","title":"Gateway misconfigured","status":500,"detail":"UPSTREAM_HOSTS is bad"}',
    });
    expect(await wire(renderError(new SettingError("IDENTITY_HMAC_SECRET", "put it", 503)))).toEqual({
      status: 503,
      headers: { "content-type": PROBLEM, "retry-after": "60" },
      body: '{"type":"about:blank","title":"Gateway not ready","status":503,"detail":"put it"}',
    });
  });

  it("a Hono helper's HTTPException: its own response, or its message as {detail}", async () => {
    const own = new Response("x", { status: 413 });
    expect(renderError(new HTTPException(413, { res: own }))).toBe(own);
    expect(await wire(renderError(new HTTPException(400, { message: "Malformed JSON" })))).toEqual({
      status: 400,
      headers: { "content-type": JSON_TYPE },
      body: '{"detail":"Malformed JSON"}',
    });
  });

  it("anything else: a 500 that names nothing, logged with the path", async () => {
    const log = vi.spyOn(console, "log").mockImplementation(() => {});
    expect(await wire(renderError(new TypeError("secret internals"), "/runs"))).toEqual({
      status: 500,
      headers: { "content-type": JSON_TYPE },
      body: '{"detail":"The gateway failed to handle this request."}',
    });
    expect(JSON.parse(log.mock.calls[0]![0] as string)).toEqual({ event: "gateway_error", error: "TypeError: secret internals", path: "/runs" });
  });
});

describe("GatewayError", () => {
  it("captures no stack trace (it is an answer, rendered without one), and leaves the runtime's limit as it was", () => {
    const v8 = Error as { stackTraceLimit?: number };
    const before = v8.stackTraceLimit;
    const error = new GatewayError("quota-exceeded", "Rate limit exceeded.");
    expect(error.stack).toBe("GatewayError: Rate limit exceeded.");
    expect(error).toBeInstanceOf(Error);
    expect(v8.stackTraceLimit).toBe(before);
    expect(new Error("another").stack).toMatch(/\n\s+at /);
  });
});
