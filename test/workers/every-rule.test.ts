// Every published row, in this project's region: `count` requests admitted, the next one denied
// with the documented 429, and another identity unaffected.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { hostedApiTable } from "../../src/rules/hosted-api.ts";
import type { Region } from "../../src/rules/schema.ts";
import { burst, freshIdentity, gateway, identityHeaders, sampleRequest } from "./support/requests.ts";

const region = env.REGION as Region;

describe(`every rule enforces its ${region.toUpperCase()} limit`, () => {
  it.each(hostedApiTable.rules.map((rule) => [rule.id, rule.name, rule] as const))("row %i (%s)", async (_, __, rule) => {
    const limit = rule.limits[region];
    const { method, path } = sampleRequest(rule);
    const who = freshIdentity();
    const send = (identity = who) => gateway(path, { method, headers: identityHeaders(rule, identity) });

    const first = await send();
    expect(first.status).toBe(200);
    expect(first.headers.get("ratelimit-policy")).toBe(`"${rule.name}";q=${limit.count};w=${limit.interval}`);
    expect(first.headers.get("ratelimit")).toBe(`"${rule.name}";r=${limit.count - 1};t=${limit.interval}`);

    const rest = await burst(limit.count - 1, () => send());
    expect(Object.fromEntries(rest)).toEqual(limit.count > 1 ? { 200: limit.count - 1 } : {});

    const denied = await send();
    expect(denied.status).toBe(429);
    expect(denied.headers.get("content-type")).toBe("application/problem+json");
    const retryAfter = Number(denied.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(limit.interval);
    expect(denied.headers.get("ratelimit")).toBe(`"${rule.name}";r=0;t=${retryAfter}`);
    const problem = (await denied.json()) as Record<string, unknown>;
    expect(problem).toMatchObject({
      type: "https://iana.org/assignments/http-problem-types#quota-exceeded",
      title: "Request quota exceeded",
      status: 429,
      "violated-policies": [rule.name],
    });
    expect(problem.detail).toContain(`"${rule.name}"`);
    expect(problem.detail).toContain(`${limit.count} requests per ${limit.interval} seconds`);
    expect(problem.detail).toContain(`Retry after ${retryAfter} seconds`);

    const other = await send(freshIdentity());
    expect(other.status).toBe(200);
    expect(other.headers.get("ratelimit-policy")).toContain(`"${rule.name}"`);
  });
});
