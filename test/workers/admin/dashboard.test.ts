// The dashboard as the Worker serves it: one page with Chart.js inlined and nothing to fetch from
// elsewhere, and its data answer, which moves with traffic. (It is opened in Chromium by
// test/unit/admin/dashboard-chromium.test.ts.)
import { afterEach, describe, expect, it } from "vitest";
import { latencySummary } from "../../../src/admin/dashboard/data.ts";
import { LATENCY_BUCKETS_MS } from "../../../src/core/metrics/aggregate.ts";
import { freshIdentity } from "../support/requests.ts";
import { admin, adminGateway, driveOverridesClock, freezeCounter, keyed, region, resetAdminState } from "./support.ts";

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
    const read = async () =>
      (await (await admin(send, "GET", "/dashboard/data")).json()) as {
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

  it("draws the rule's limit flat across the whole axis, an identity's override apart, and no fullest point in an empty bucket", async () => {
    const send = adminGateway();
    const K = freshIdentity().apiKey;
    const K2 = freshIdentity().apiKey;
    await freezeCounter(28, { kind: "api-key", apiKey: K }, 1_900_000_000_000);
    const limit = region === "eu" ? 20 : 1;
    // K2 may make 100 an hour on row 28: its decisions meet 100, the rule's line stays at `limit`.
    const made = await admin(send, "POST", "/overrides", {
      body: {
        rule: 28,
        identity: { kind: "api-key", value: K2 },
        action: "limit",
        limits: { [region]: { count: 100, interval: 3600 } },
        reason: "a big customer",
      },
    });
    expect(made.status).toBe(201);
    for (let i = 0; i < limit + 2; i++) await send("/runs/stats", { headers: keyed(K) });
    for (let i = 0; i < 3; i++) expect((await send("/runs/stats", { headers: keyed(K2) })).status).toBe(200);
    const data = (await (await admin(send, "GET", "/dashboard/data")).json()) as {
      at: number[];
      span: string;
      spanMs: number;
      bucketMs: number;
      series: Record<string, { admitted: number[]; denied: number[]; shadowDenied: number[]; fullest: (number | null)[]; limit: number[] }>;
      rules: {
        id: number;
        limit: { count: number };
        denialRate: number | null;
        counterLatency: { count: number; p50: number | null; p99: number | null } | null;
        totals: { admitted: number; denied: number; denyCache: number };
        identityOverrides: { subject: { kind: string; digest: string }; action: string; limit: { count: number; interval: number } | null }[];
      }[];
    };
    // The span the data chose holds all its traffic (just sent): five minutes of 10 s buckets, to now.
    expect(data.span).toBe("5m");
    expect(data.at.length * data.bucketMs).toBe(data.spanMs);
    expect(data.spanMs).toBe(300_000);
    expect(data.at.every((t, i) => i === 0 || t - data.at[i - 1]! === data.bucketMs)).toBe(true);
    const series = data.series["28"]!;
    expect(series.limit).toEqual(data.at.map(() => limit));
    series.fullest.forEach((v, i) => {
      if (series.admitted[i]! + series.denied[i]! + series.shadowDenied[i]! === 0) expect(v).toBeNull();
    });
    expect(series.fullest.filter((v) => v !== null).length).toBeGreaterThan(0);
    const row = data.rules.find((r) => r.id === 28)!;
    expect(row.limit.count).toBe(limit);
    expect(row.identityOverrides).toHaveLength(1);
    expect(row.identityOverrides[0]).toMatchObject({ subject: { kind: "api-key" }, action: "limit", limit: { count: 100, interval: 3600 } });
    expect(row.identityOverrides[0]!.subject.digest).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(data)).not.toContain(K2);
    // Another rule does not list it.
    expect(data.rules.find((r) => r.id === 12)!.identityOverrides).toEqual([]);
    // One on every rule is listed on the rules that count what it names (keys), not on a user's.
    const everywhere = await admin(send, "POST", "/overrides", {
      body: { identity: { kind: "api-key", value: freshIdentity().apiKey }, action: "block", reason: "abuse" },
    });
    expect(everywhere.status).toBe(201);
    const after = (await (await admin(send, "GET", "/dashboard/data")).json()) as {
      rules: { id: number; identity: string; identityOverrides: { action: string; everyRule: boolean }[] }[];
    };
    expect(after.rules.find((r) => r.id === 12)!.identityOverrides).toEqual([expect.objectContaining({ action: "block", everyRule: true })]);
    const userRule = after.rules.find((r) => r.identity === "user-ip")!;
    expect(userRule.identityOverrides).toEqual([]);
    expect(row.denialRate).toBeCloseTo(row.totals.denied / (row.totals.admitted + row.totals.denied), 10);
    expect(row.totals.denyCache).toBeLessThanOrEqual(row.totals.denied);
    expect(row.counterLatency!.count).toBeGreaterThan(0);
    expect(LATENCY_BUCKETS_MS as readonly number[]).toContain(row.counterLatency!.p50);
  });

  it("chooses the hour once the traffic kept is older than five minutes, and keeps its bucket on the axis", async () => {
    const clock = driveOverridesClock(1_950_000_000_000);
    const send = adminGateway();
    const K = freshIdentity().apiKey;
    expect((await send("/runs/stats", { headers: keyed(K) })).status).toBe(200);
    type Data = { at: number[]; span: string; series: Record<string, { admitted: number[] }> };
    const read = async () => (await (await admin(send, "GET", "/dashboard/data")).json()) as Data;
    const fresh = await read();
    expect(fresh.span).toBe("5m");
    clock.now += 6 * 60_000;
    const later = await read();
    expect(later.span).toBe("1h");
    expect(later.at).toHaveLength(360);
    const sent = later.at.indexOf(1_950_000_000_000);
    expect(sent).toBeGreaterThanOrEqual(0);
    expect(later.series["28"]!.admitted[sent]).toBe(1);
  });

  it("shows the span asked for, and refuses one it does not know in the API's own shape", async () => {
    const send = adminGateway();
    const hour = (await (await admin(send, "GET", "/dashboard/data?span=1h")).json()) as { at: number[]; span: string; spanMs: number };
    expect(hour).toMatchObject({ span: "1h", spanMs: 3_600_000 });
    expect(hour.at).toHaveLength(360);
    const five = (await (await admin(send, "GET", "/dashboard/data?span=5m")).json()) as { at: number[]; span: string };
    expect(five.at).toHaveLength(30);
    const bad = await admin(send, "GET", "/dashboard/data?span=2d");
    expect(bad.status).toBe(422);
    expect(await bad.json()).toEqual({ detail: [{ loc: ["query", "span"], msg: "span must be one of 5m, 1h", type: "enum" }] });
  });
});

describe("latencySummary", () => {
  it("states p50 and p99 as the upper bound of the bucket that holds them, past the last bound as null", () => {
    const counts = new Array<number>(LATENCY_BUCKETS_MS.length + 1).fill(0);
    counts[2] = 60; // <= 5 ms
    counts[5] = 39; // <= 50 ms
    counts[LATENCY_BUCKETS_MS.length] = 1; // > 5000 ms
    expect(latencySummary({ counts, sum: 6000, count: 100 })).toEqual({ count: 100, mean: 60, p50: 5, p99: 50 });
    counts[5] = 38;
    counts[LATENCY_BUCKETS_MS.length] = 2;
    expect(latencySummary({ counts, sum: 6000, count: 100 }).p99).toBeNull();
    expect(latencySummary({ counts: counts.map(() => 0), sum: 0, count: 0 })).toEqual({ count: 0, mean: null, p50: null, p99: null });
  });
});
