// The dashboard as the Worker serves it: one page with Chart.js inlined and nothing to fetch from
// elsewhere, and its data answer, which moves with traffic. (It is opened in Chromium by
// test/unit/admin/dashboard-chromium.test.ts.)
import { afterEach, describe, expect, it } from "vitest";
import { freshIdentity } from "../support/requests.ts";
import { admin, adminGateway, freezeCounter, keyed, region, resetAdminState } from "./support.ts";

afterEach(() => resetAdminState());

describe("GET /_tollgate/dashboard", () => {
  it("is one self-contained page: Chart.js inlined, no external resource, a strict content policy", async () => {
    const res = await admin(adminGateway(), "GET", "/dashboard");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/html/);
    expect(res.headers.get("content-security-policy")).toContain("default-src 'none'");
    expect(res.headers.get("content-security-policy")).toContain("connect-src 'self'");
    const html = await res.text();
    expect(html).toContain("Chart.js v4.6.1");
    expect(html).not.toMatch(/\b(src|href)=["']?(https?:)?\/\//i);
    expect(html).not.toContain("sourceMappingURL");
    expect(html).toContain('id="override-form"');
  });

  it("serves its data with live numbers after traffic: totals, the series against the limit, the most limited identities", async () => {
    const send = adminGateway();
    const K = freshIdentity().apiKey;
    const { address } = await freezeCounter(28, { kind: "api-key", apiKey: K }, 1_900_000_000_000);
    const limit = region === "eu" ? 20 : 1;
    const read = async () => (await (await admin(send, "GET", "/dashboard/data")).json()) as {
      rules: { id: number; totals: { admitted: number; denied: number }; limit: { count: number } }[];
      series: Record<string, { admitted: number[]; denied: number[]; fullest: (number | null)[]; limit: (number | null)[] }>;
      limited: { counter: string; denials: number }[];
      at: number[];
    };
    const before = (await read()).rules.find((r) => r.id === 28)!.totals;
    for (let i = 0; i < limit + 4; i++) await send("/runs/stats", { headers: keyed(K) });
    const data = await read();
    const row = data.rules.find((r) => r.id === 28)!;
    expect(row.totals.admitted - before.admitted).toBe(limit);
    expect(row.totals.denied - before.denied).toBe(4);
    const series = data.series["28"]!;
    expect(series.admitted.length).toBe(data.at.length);
    expect(series.admitted.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(limit);
    expect(Math.max(...series.fullest.map((v) => v ?? 0))).toBe(limit);
    expect(series.limit.filter((v) => v !== null).every((v) => v === limit)).toBe(true);
    expect(data.limited.find((l) => l.counter === address.name)?.denials).toBe(4);
    expect(JSON.stringify(data)).not.toContain(K);
  });
});
