import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";

describe("gateway smoke", () => {
  it("proxies to the echo upstream with rate-limit headers", async () => {
    const res = await exports.default.fetch("http://gw.test/runs/query", {
      method: "POST",
      headers: { "x-api-key": "k", "cf-connecting-ip": "198.51.100.1" },
      body: "hello",
    });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe("hello");
    expect(res.headers.get("ratelimit-policy")).toBe('"runs-query-key";q=15;w=10');
    expect(env.REGION).toMatch(/us|eu/);
  });
});
