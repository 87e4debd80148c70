// Every published row, in this project's region: `count` requests admitted, the next one denied
// with the documented 429, and another identity unaffected.
import { env } from "cloudflare:workers";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { hostedApiTable } from "../../../src/core/rules/hosted-api.ts";
import type { Region } from "../../../src/core/rules/schema.ts";
import { sampleRequest } from "../../../src/core/rules/sample-request.ts";
import type { Env } from "../../../src/env.ts";
import { createWorker } from "../../../src/worker.ts";
import { burst, freshIdentity, identityHeaders, inProcess } from "../support/requests.ts";

const region = env.REGION as Region;

/**
 * The hosted API this file's gateway forwards to: it answers 200 and counts what reached it, so
 * each row proves what was forwarded as well as what was answered. (Forwarding to the emulator
 * Workers is the routing and through-gateway tests' subject; here the service call to the echo
 * cost more than the rest of the request path.)
 */
let forwarded = 0;
const hostedApi = { fetch: async () => (forwarded++, new Response("ok")) } as unknown as Fetcher;
const rowEnv = { ...env, HOSTED_API: hostedApi } as Env;
/** The gateway Worker as src/index.ts makes it, called in this test's context (inProcess). */
const gateway = inProcess(createWorker(), rowEnv);

describe(`every rule enforces its ${region.toUpperCase()} limit`, () => {
  // The clock stands still while a test sends its burst (6000 requests may take longer than a
  // 10-second window on a busy machine) and is moved on by hand to check Retry-After.
  beforeAll(() => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(new Date("2026-11-21T12:00:00Z"));
  });
  afterAll(() => vi.useRealTimers());

  it.each(hostedApiTable.rules.map((rule) => [rule.id, rule.name, rule] as const))("row %i (%s)", async (_, __, rule) => {
    const limit = rule.limits[region];
    const { method, path } = sampleRequest(rule);
    const who = freshIdentity();
    const send = (identity = who) => gateway(path, { method, headers: identityHeaders(rule, identity) });

    forwarded = 0;
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
    // The admitted requests, and no denied one, reached the upstream.
    expect(forwarded).toBe(limit.count + 1);

    // Retry-After is exact here (nothing expired during the burst) and never early.
    expect(retryAfter).toBe(limit.interval);
    vi.advanceTimersByTime(retryAfter * 1000 - 1);
    expect((await send()).status).toBe(429);
    vi.advanceTimersByTime(1);
    expect((await send()).status).toBe(200);
    expect(forwarded).toBe(limit.count + 2);
  });
});
