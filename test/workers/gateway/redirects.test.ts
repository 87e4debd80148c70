import { inject } from "vitest";
import { describe, expect, it } from "vitest";
import { gatewayWith } from "../support/custom-gateway.ts";
import { freshIdentity } from "../support/requests.ts";

/**
 * An upstream's redirect is passed to the client untouched (docs/rules.md, "Routing and proxying"): the
 * gateway never follows it, so the client sees the 3xx and its Location, and nothing the client
 * sent (its x-api-key above all) reaches the redirect target. The origin and the target are real
 * HTTP servers (test/setup/redirecting-origin.ts).
 */
describe("upstream redirects", () => {
  const origin = inject("redirectingOrigin");
  const targetHits = async () => (await (await fetch(`${origin}/__target-hits`)).json()) as { path: string; apiKey?: string }[];

  it.each([
    ["GET", 302],
    ["POST", 307],
  ] as const)("passes a %s's %i and its Location to the client and sends nothing to the target", async (method, status) => {
    const before = (await targetHits()).length;
    const send = gatewayWith({ HOSTED_API_ORIGIN: origin });
    const identity = freshIdentity();
    const res = await send("/runs/stats?page=2", {
      method,
      headers: { "x-api-key": identity.apiKey, "cf-connecting-ip": identity.ip },
      ...(method === "POST" && { body: '{"a":1}' }),
    });
    expect(res.status).toBe(status);
    expect(res.headers.get("location")).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/stolen\/runs\/stats\?page=2$/);
    expect(res.headers.get("x-origin")).toBe("redirecting");
    // Counted like any answer: the rate-limit fields ride on the redirect.
    expect(res.headers.get("ratelimit")).toMatch(/;r=\d+;t=\d+$/);
    const hits = await targetHits();
    expect(hits.slice(before)).toEqual([]);
    expect(hits.map((hit) => hit.apiKey)).not.toContain(identity.apiKey);
  });
});
