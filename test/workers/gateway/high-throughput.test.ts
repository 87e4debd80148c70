// Row 1 of the published table (OPTIONS and /info: 2000 per 10 s per IP) on every upstream: a
// browser's CORS preflights to the control plane or the agent server are row 1's, never the
// caller's default or catch-all budget (docs/rules.md, "Limits per upstream").
import { env } from "cloudflare:workers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { vi } from "vitest";
import type { Region } from "../../../src/core/rules/schema.ts";
import { ruleTables } from "../../../src/core/rules/tables.ts";
import { burst, freshIdentity, gatewayInProcess as gateway } from "../support/requests.ts";

const region = env.REGION as Region;

describe("row 1 on every upstream", () => {
  // The clock stands still during a burst (2000 requests may outlast 10 s on a busy machine).
  beforeAll(() => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(new Date("2026-11-25T12:00:00Z"));
  });
  afterAll(() => vi.useRealTimers());

  it.each([
    ["control-plane", "/v2/deployments"],
    ["agent-server", "/agent-server/threads/search"],
  ] as const)("admits 2,000 preflights from one IP to the %s in 10 s, then refuses under row 1", async (upstream, path) => {
    const rule = ruleTables[upstream].rules.find((r) => r.category === "High throughput")!;
    const { count, interval } = rule.limits[region];
    expect(count).toBe(2000);
    const who = freshIdentity();
    const preflight = () =>
      gateway(path, {
        method: "OPTIONS",
        headers: {
          "cf-connecting-ip": who.ip,
          origin: "https://ui.example.com",
          "access-control-request-method": "POST",
          "access-control-request-headers": "x-api-key",
        },
      });
    const first = await preflight();
    expect(first.headers.get("ratelimit-policy")).toBe(`"${rule.name}";q=${count};w=${interval}`);
    await first.body?.cancel();
    const rest = await burst(count - 1, preflight);
    expect(rest.get(429)).toBeUndefined();
    const denied = await preflight();
    expect(denied.status).toBe(429);
    expect(((await denied.json()) as { "violated-policies": string[] })["violated-policies"]).toEqual([rule.name]);
    // The same IP's other requests still have the catch-all's whole budget.
    const other = await gateway(path.replace("/search", ""), { headers: { "cf-connecting-ip": who.ip } });
    expect(other.status).not.toBe(429);
    expect(other.headers.get("ratelimit")).toMatch(/;r=99;t=60$/);
  });
});
