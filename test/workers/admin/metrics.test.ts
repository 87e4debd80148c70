// Metrics move with traffic: the Prometheus text of GET /_tollgate/metrics, parsed, before and
// after (the totals live in the region's metrics object, which outlives a test, so deltas are
// compared), and one JSON log line per decision with hashed counters only.
import { afterEach, describe, expect, it, vi } from "vitest";
import { freshIdentity } from "../support/requests.ts";
import { recordingLimiter } from "../support/custom-gateway.ts";
import { admin, adminGateway, freezeCounter, keyed, region, resetAdminState } from "./support.ts";

afterEach(async () => {
  vi.restoreAllMocks();
  await resetAdminState();
});

/** `name{labels}` -> value, from the text exposition format. */
function parsePrometheus(text: string): Map<string, number> {
  const samples = new Map<string, number>();
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const match = /^([a-z_]+)(\{[^}]*\})? (\S+)$/.exec(line);
    if (!match) throw new Error(`not a sample line: ${line}`);
    samples.set(`${match[1]}${match[2] ?? ""}`, Number(match[3]));
  }
  return samples;
}

async function scrape(send: ReturnType<typeof adminGateway>) {
  const res = await admin(send, "GET", "/metrics");
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
  return parsePrometheus(await res.text());
}

const decisions = (rule: number, name: string, outcome: string) =>
  `tollgate_decisions_total{region="${region}",rule="${rule}",rule_name="${name}",outcome="${outcome}"}`;
const perRule = (metric: string, rule: number, name: string) => `${metric}{region="${region}",rule="${rule}",rule_name="${name}"}`;

describe("GET /_tollgate/metrics", () => {
  it("moves after traffic: admissions, denials, deny-cache answers, counter failures, latency, upstream status classes", async () => {
    const send = adminGateway({ DECISION_LOG_SAMPLE: "1" });
    const before = await scrape(send);
    const delta = (after: Map<string, number>, key: string) => (after.get(key) ?? 0) - (before.get(key) ?? 0);

    const T = 1_900_000_000_000;
    const K = freshIdentity().apiKey;
    await freezeCounter(28, { kind: "api-key", apiKey: K }, T);
    const limit = region === "eu" ? 20 : 1;
    for (let i = 0; i < limit + 3; i++) await send("/runs/stats", { headers: keyed(K) });
    // Two requests while row 12's counter fails: decided by the local fallback, counted as failures.
    vi.spyOn(console, "log").mockImplementation(() => {});
    // Another gateway is another isolate: its counts reach the totals when it hands them on (an
    // admin read through it does so at once).
    const failing = adminGateway({ COUNTERS: recordingLimiter("fail").namespace });
    for (let i = 0; i < 2; i++) await failing("/runs/query", { method: "POST", headers: keyed(freshIdentity().apiKey) });
    await scrape(failing);

    const after = await scrape(send);
    expect(delta(after, decisions(28, "runs-stats-key", "admitted"))).toBe(limit);
    expect(delta(after, decisions(28, "runs-stats-key", "denied"))).toBe(3);
    // The first denial came from the object; the next two from this isolate's deny cache.
    expect(delta(after, perRule("tollgate_deny_cache_answers_total", 28, "runs-stats-key"))).toBe(2);
    // Every admission not decided on a lease and the first denial: a counter call (timed). US (1 per
    // window): never leased. EU (20): leased from the first call (a new isolate asks for a lease on
    // a counter's first call, src/core/limiter/lease.ts), a unit at a time (count/16), until half
    // the room left is under a unit (the 20th request): 18 on leases.
    const leased = delta(after, perRule("tollgate_lease_answers_total", 28, "runs-stats-key"));
    expect(leased).toBe(region === "eu" ? 18 : 0);
    expect(delta(after, `tollgate_counter_latency_ms_count{region="${region}",rule="28",rule_name="runs-stats-key"}`)).toBe(limit + 1 - leased);
    expect(delta(after, perRule("tollgate_counter_failures_total", 12, "runs-query-key"))).toBe(2);
    expect(delta(after, decisions(12, "runs-query-key", "admitted"))).toBe(2);
    // Admitted by the failing isolate's own window: counted apart, the outage's bound made visible.
    expect(delta(after, perRule("tollgate_fallback_admissions_total", 12, "runs-query-key"))).toBe(2);
    expect(delta(after, `tollgate_upstream_responses_total{region="${region}",upstream="hosted-api",class="2xx"}`)).toBe(limit + 2);
    expect(delta(after, `tollgate_upstream_latency_ms_count{region="${region}",upstream="hosted-api"}`)).toBe(limit + 2);
    expect(after.get(`tollgate_upstream_latency_ms_bucket{region="${region}",upstream="hosted-api",le="+Inf"}`)).toBe(
      after.get(`tollgate_upstream_latency_ms_count{region="${region}",upstream="hosted-api"}`),
    );
  });

  it("counts shadow denials, blocks and exemptions by outcome", async () => {
    const send = adminGateway();
    const before = await scrape(send);
    const K = freshIdentity().apiKey;
    const B = freshIdentity().apiKey;
    const E = freshIdentity().apiKey;
    await admin(send, "POST", "/overrides", { body: { rule: 28, mode: "shadow", reason: "measure" } });
    await admin(send, "POST", "/overrides", { body: { identity: { kind: "api-key", value: B }, action: "block", reason: "abuse" } });
    await admin(send, "POST", "/overrides", {
      body: { identity: { kind: "api-key", value: E }, rule: 28, action: "exempt", reason: "monitor", expiresInSeconds: 3600 },
    });
    const limit = region === "eu" ? 20 : 1;
    await freezeCounter(28, { kind: "api-key", apiKey: K }, 1_900_000_000_000);
    for (let i = 0; i < limit + 2; i++) expect((await send("/runs/stats", { headers: keyed(K) })).status).toBe(200);
    expect((await send("/runs/stats", { headers: keyed(B) })).status).toBe(403);
    for (let i = 0; i < 3; i++) expect((await send("/runs/stats", { headers: keyed(E) })).status).toBe(200);
    const after = await scrape(send);
    const delta = (outcome: string) => (after.get(decisions(28, "runs-stats-key", outcome)) ?? 0) - (before.get(decisions(28, "runs-stats-key", outcome)) ?? 0);
    expect(delta("shadow_denied")).toBe(2);
    expect(delta("blocked")).toBe(1);
    expect(delta("exempt")).toBe(3);
  });
});

describe("the decision log", () => {
  it("writes one JSON line per decision, admissions sampled by DECISION_LOG_SAMPLE, never a raw key", async () => {
    const logs: string[] = [];
    vi.spyOn(console, "log").mockImplementation((line: unknown) => void logs.push(String(line)));
    const K = `sk-live-${crypto.randomUUID()}`;
    const all = adminGateway({ DECISION_LOG_SAMPLE: "1" });
    for (let i = 0; i < 3; i++) await all("/runs/query", { method: "POST", headers: keyed(K) });
    const lines = logs.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.event === "admitted" && l.rule === 12);
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatchObject({ region, decidedBy: "object", limit: "15/10", remaining: 14, sampled: 1 });
    // The counter's name in the US; in the EU nothing derived from the identity (docs/identity-data.md).
    if (region === "eu") expect(lines[0]).not.toHaveProperty("counter");
    else expect(lines[0]!.counter).toMatch(new RegExp(`^${region}:12:[0-9a-f]{64}$`));

    logs.length = 0;
    const none = adminGateway({ DECISION_LOG_SAMPLE: "0" });
    for (let i = 0; i < 3; i++) await none("/runs/query", { method: "POST", headers: keyed(K) });
    expect(logs.map((l) => JSON.parse(l) as { event: string }).filter((l) => l.event === "admitted")).toHaveLength(0);
    for (let i = 0; i < 10; i++) await none("/runs/query", { method: "POST", headers: keyed(K) });
    // Denials are always logged (the object's; the deny cache's are sampled like admissions).
    expect(logs.map((l) => JSON.parse(l) as { event: string }).filter((l) => l.event === "denied").length).toBeGreaterThanOrEqual(1);
    for (const line of logs) expect(line).not.toContain(K);
  });
});
