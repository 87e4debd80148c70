// TIME_SCALE and LIMITER_ALGORITHM: development settings for the load test, refused by the us and
// eu environments (DEV_SETTINGS=refuse in wrangler.toml).
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { freshIdentity } from "../support/requests.ts";
import { gatewayWith } from "../support/custom-gateway.ts";

afterEach(() => vi.useRealTimers());

const query =
  (send: ReturnType<typeof gatewayWith>, who = freshIdentity()) =>
  () =>
    send("/runs/query", { method: "POST", headers: { "x-api-key": who.apiKey, "cf-connecting-ip": who.ip } });

async function statuses(n: number, send: () => Promise<Response>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push((await send()).status);
  return out;
}

describe("development settings", () => {
  it("are refused by the deployed environments' configuration", async () => {
    expect(env.DEV_SETTINGS).toBe("refuse");
    for (const overrides of [{ TIME_SCALE: "60" }, { LIMITER_ALGORITHM: "fixed-window" }]) {
      const res = await query(gatewayWith(overrides))();
      expect(res.status).toBe(500);
      expect(((await res.json()) as { detail: string }).detail).toMatch(/development settings, refused unless DEV_SETTINGS=allow/);
    }
  });

  it("TIME_SCALE divides every interval: 15 per 10 s becomes 15 per second at 10x", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(1_800_000_000_000);
    const send = query(gatewayWith({ DEV_SETTINGS: "allow", TIME_SCALE: "10" }));
    expect(await statuses(15, send)).toEqual(Array(15).fill(200));
    const denied = await send();
    expect(denied.status).toBe(429);
    expect(denied.headers.get("retry-after")).toBe("1"); // real seconds
    expect(denied.headers.get("x-tollgate-time-scale")).toBe("10");
    expect(denied.headers.get("ratelimit-policy")).toBe('"runs-query-key";q=15;w=10'); // as published
    vi.advanceTimersByTime(999);
    expect((await send()).status).toBe(429);
    vi.advanceTimersByTime(1);
    expect((await send()).status).toBe(200);
  });

  it("LIMITER_ALGORITHM=fixed-window really is broken: 2x count across a window boundary", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(1_800_000_009_999); // 1 ms before a 10-second boundary
    const fixed = query(gatewayWith({ DEV_SETTINGS: "allow", LIMITER_ALGORITHM: "fixed-window" }));
    const sliding = query(gatewayWith({}));
    const before = [...(await statuses(15, fixed)), ...(await statuses(15, sliding))];
    vi.advanceTimersByTime(1);
    const after = [...(await statuses(15, fixed)), ...(await statuses(15, sliding))];
    expect(before.filter((s) => s === 200)).toHaveLength(30);
    expect(after.slice(0, 15)).toEqual(Array(15).fill(200)); // fixed window: 30 within 1 ms
    expect(after.slice(15)).toEqual(Array(15).fill(429)); // sliding window: still 15
  });
});
