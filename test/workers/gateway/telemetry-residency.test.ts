// EU data stays in the EU (docs/identity-data.md, "EU data stays in the EU"): in the EU environment nothing
// derived from an identity (a counter's name holds its digest) goes to the log or to Analytics
// Engine, neither of which is bound to the EU jurisdiction; in the US both carry counter names.
// Runs in both Workers projects, so each region is held to its own rule.
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { identityDigest } from "../../../src/core/rules/identity.ts";
import { gatewayWith, recordingLimiter } from "../support/custom-gateway.ts";
import { freshIdentity } from "../support/requests.ts";

const eu = env.REGION === "eu";

function recordingAnalytics() {
  const points: AnalyticsEngineDataPoint[] = [];
  return { points, dataset: { writeDataPoint: (point?: AnalyticsEngineDataPoint) => void points.push(point!) } as AnalyticsEngineDataset };
}

describe(`identity digests in telemetry (${env.REGION})`, () => {
  afterEach(() => vi.restoreAllMocks());

  it(eu ? "leaves every counter name out of log lines and Analytics Engine" : "names the counter in log lines and Analytics Engine", async () => {
    const lines: string[] = [];
    vi.spyOn(console, "log").mockImplementation((line: unknown) => void lines.push(String(line)));
    const analytics = recordingAnalytics();
    const who = freshIdentity();
    const headers = { "x-api-key": who.apiKey, "x-user-id": who.userId, "cf-connecting-ip": who.ip };
    // Row 12 (POST /runs/query) to its limit and past it: admissions (logged at sample 1), a denial.
    const send = gatewayWith({ ANALYTICS: analytics.dataset, DECISION_LOG_SAMPLE: "1" });
    const statuses = [];
    for (let i = 0; i < 40; i++) statuses.push((await send("/runs/query", { method: "POST", headers })).status);
    expect(statuses).toContain(429);
    // A counter object failing: the counter_failure line and a locally decided admission.
    const failing = gatewayWith({ ANALYTICS: analytics.dataset, DECISION_LOG_SAMPLE: "1", COUNTERS: recordingLimiter("fail").namespace });
    expect((await failing("/runs/stats", { headers })).status).toBe(200);

    const digests = [
      identityDigest({ kind: "api-key", apiKey: who.apiKey }, env.IDENTITY_HMAC_SECRET!),
      identityDigest({ kind: "user-ip", userId: who.userId, ip: who.ip }, env.IDENTITY_HMAC_SECRET!),
      identityDigest({ kind: "ip", ip: who.ip }, env.IDENTITY_HMAC_SECRET!),
    ];
    const events = lines.map((line) => JSON.parse(line) as { event: string; counter?: string });
    expect(events.map((e) => e.event)).toEqual(expect.arrayContaining(["admitted", "denied", "counter_failure"]));
    const telemetry = [...lines, ...analytics.points.map((point) => JSON.stringify(point))].join("\n");
    expect(analytics.points.length).toBeGreaterThan(40);
    for (const raw of [who.apiKey, who.userId, who.ip]) expect(telemetry).not.toContain(raw);
    if (eu) {
      for (const digest of digests) expect(telemetry).not.toContain(digest);
      expect(events.filter((e) => "counter" in e)).toEqual([]);
    } else {
      expect(telemetry).toContain(`us:12:${digests[0]}`);
      expect(events.find((e) => e.event === "counter_failure")?.counter).toMatch(/^us:28:[0-9a-f]{64}$/);
    }
  });
});
