// Overrides at runtime: applied within the stated bound (OVERRIDES_REFRESH_MS, on a clock the test
// drives), expiring on time, shadow mode without a deploy, blocks, exemptions, precedence,
// refusals that change nothing, and the audit log. Counter objects are frozen in time, so no
// window slides however slowly the machine runs.
import { env } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { subjectOf } from "../../../src/core/overrides/subject.ts";
import type { OverridesStore } from "../../../src/durable-objects/overrides-store.ts";
import { freshIdentity } from "../support/requests.ts";
import { recordingLimiter } from "../support/custom-gateway.ts";
import {
  admin,
  adminGateway,
  adminUrl,
  configObject,
  driveOverridesClock,
  freezeCounter,
  keyed,
  region,
  resetAdminState,
  runsQuery,
  TOKEN,
} from "./support.ts";

const T = 1_900_000_000_000;
const REFRESH_MS = 5_000;
afterEach(async () => {
  vi.restoreAllMocks();
  await resetAdminState();
});

/** A gateway with the admin API, its overrides on the test's clock, the config object too. */
async function setup() {
  const clock = driveOverridesClock(T);
  const config = await configObject(clock);
  const send = adminGateway({ OVERRIDES_REFRESH_MS: String(REFRESH_MS) });
  return { clock, config, send };
}

describe("an override raising key K's limit on row 12 (15/10)", () => {
  it(`reaches an isolate that did not make it within OVERRIDES_REFRESH_MS (${REFRESH_MS} ms), and ends at its expiry`, async () => {
    const { clock, config, send } = await setup();
    const K = freshIdentity().apiKey;
    await freezeCounter(12, { kind: "api-key", apiKey: K }, T);

    for (let i = 0; i < 15; i++) expect((await runsQuery(send, K)).status).toBe(200);
    expect((await runsQuery(send, K)).status).toBe(429); // this isolate's copy is now read at T

    // Made elsewhere: written straight to the overrides store, as another isolate's admin
    // request would, so this isolate learns of it only by reading again.
    const subject = await subjectOf("api-key", K, env.IDENTITY_HMAC_SECRET!);
    if (!subject.ok) throw new Error(subject.why);
    const set = await config.set(
      {
        kind: "identity",
        rule: 12,
        subject: subject.subject,
        action: "limit",
        limits: { [region]: { count: 30, interval: 10 } },
        reason: "customer trial",
        expiresInSeconds: 60,
      },
      "admin",
    );
    expect(set.ok).toBe(true);

    clock.now = T + REFRESH_MS - 1; // within the bound: the old copy may still apply
    const before = await runsQuery(send, K);
    expect(before.status).toBe(429);
    expect(before.headers.get("ratelimit-policy")).toBe('"runs-query-key";q=15;w=10');

    clock.now = T + REFRESH_MS; // at the bound: applied
    const after = await runsQuery(send, K);
    expect(after.status).toBe(200);
    expect(after.headers.get("ratelimit-policy")).toBe('"runs-query-key";q=30;w=10');
    expect(after.headers.get("ratelimit")).toBe('"runs-query-key";r=14;t=10');
    for (let i = 0; i < 14; i++) expect((await runsQuery(send, K)).status).toBe(200);
    expect((await runsQuery(send, K)).status).toBe(429); // 30 in the window: the raised limit, exactly

    // Another key is untouched by K's override.
    expect((await runsQuery(send, freshIdentity().apiKey)).headers.get("ratelimit-policy")).toBe('"runs-query-key";q=15;w=10');

    clock.now = T + 60_000 - 1; // the last moment of the override
    expect((await runsQuery(send, K)).headers.get("ratelimit-policy")).toBe('"runs-query-key";q=30;w=10');
    clock.now = T + 60_000; // expired: the published limit again, without waiting for a read
    const expired = await runsQuery(send, K);
    expect(expired.status).toBe(429);
    expect(expired.headers.get("ratelimit-policy")).toBe('"runs-query-key";q=15;w=10');

    // The overrides store recorded the expiry in the audit log.
    const audit = (await (await admin(send, "GET", "/audit")).json()) as { entries: { action: string; actor: string; at: number }[] };
    expect(audit.entries[0]).toMatchObject({ action: "expire", actor: "expiry", at: T + 60_000 });
  });

  it("is applied at once by the isolate whose admin API made it", async () => {
    const { send } = await setup();
    const K = freshIdentity().apiKey;
    await freezeCounter(12, { kind: "api-key", apiKey: K }, T);
    for (let i = 0; i < 15; i++) await runsQuery(send, K);
    expect((await runsQuery(send, K)).status).toBe(429);
    const res = await admin(send, "POST", "/overrides", {
      body: { identity: { kind: "api-key", value: K }, rule: 12, action: "limit", limits: { [region]: { count: 20, interval: 10 } }, reason: "raised" },
    });
    expect(res.status).toBe(201);
    const statuses = [];
    for (let i = 0; i < 6; i++) statuses.push((await runsQuery(send, K)).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
  });
});

describe("shadow mode switched at runtime", () => {
  it("stops denials on the rule without a deploy, and ending it brings them back", async () => {
    await setup();
    // Every decision logged (denials answered by the deny cache are otherwise sampled).
    const send = adminGateway({ OVERRIDES_REFRESH_MS: String(REFRESH_MS), DECISION_LOG_SAMPLE: "1" });
    const logs: string[] = [];
    vi.spyOn(console, "log").mockImplementation((line: unknown) => void logs.push(String(line)));
    const K = freshIdentity().apiKey;
    await freezeCounter(12, { kind: "api-key", apiKey: K }, T);
    for (let i = 0; i < 15; i++) await runsQuery(send, K);
    expect((await runsQuery(send, K)).status).toBe(429);

    const res = await admin(send, "POST", "/overrides", { body: { rule: 12, mode: "shadow", reason: "incident 42: suspected miscount" } });
    expect(res.status).toBe(201);
    const { override } = (await res.json()) as { override: { id: string } };
    for (let i = 0; i < 5; i++) {
      const shadowed = await runsQuery(send, K);
      expect(shadowed.status).toBe(200);
      expect(shadowed.headers.get("ratelimit")).toMatch(/^"runs-query-key";r=0;t=\d+$/);
    }
    expect(logs.map((l) => JSON.parse(l)).some((l) => l.event === "shadow_denied" && l.override === override.id)).toBe(true);

    expect((await admin(send, "DELETE", `/overrides/${override.id}`)).status).toBe(200);
    expect((await runsQuery(send, K)).status).toBe(429);
  });
});

describe("a malformed override", () => {
  it.each([
    ["a zero limit", { rule: 12, limits: { [region]: { count: 0, interval: 10 } }, reason: "x" }, ["body", "limits", region, "count"]],
    ["a fractional interval", { rule: 12, limits: { [region]: { count: 5, interval: 1.5 } }, reason: "x" }, ["body", "limits", region, "interval"]],
    ["an unknown key", { rule: 12, mode: "shadow", reason: "x", color: "red" }, ["body", "color"]],
    ["an unknown mode", { rule: 12, mode: "off", reason: "x" }, ["body", "mode"]],
    ["no reason", { rule: 12, mode: "shadow" }, ["body", "reason"]],
    ["a rule that does not exist", { rule: 999, mode: "shadow", reason: "x" }, ["body", "rule"]],
    ["a limit action without limits", { identity: { kind: "api-key", value: "k" }, action: "limit", reason: "x" }, ["body", "limits"]],
    ["an address that is not one", { identity: { kind: "ip", value: "300.1.1.1" }, action: "block", reason: "x" }, ["body", "identity", "value"]],
    [
      "an IPv6 prefix longer than /64",
      { identity: { kind: "ipv6-prefix", value: "2001:db8::/80" }, action: "block", reason: "x" },
      ["body", "identity", "value"],
    ],
    ["an expiry in the past", { rule: 12, mode: "shadow", reason: "x", expiresAt: "2001-01-01T00:00:00Z" }, ["body", "expiresAt"]],
    ["a count of 1e12", { rule: 12, limits: { [region]: { count: 1e12, interval: 10 } }, reason: "x" }, ["body", "limits", region, "count"]],
    [
      "an interval of 9e12 s (285,000 years)",
      { identity: { kind: "api-key", value: "k" }, action: "limit", limits: { [region]: { count: 5, interval: 9e12 } }, reason: "x" },
      ["body", "limits", region, "interval"],
    ],
    ["an exemption without an expiry", { identity: { kind: "api-key", value: "k" }, action: "exempt", reason: "x" }, ["body", "expiresAt"]],
    [
      "an exemption for longer than 30 days",
      { identity: { kind: "api-key", value: "k" }, action: "exempt", reason: "x", expiresInSeconds: 31 * 86_400 },
      ["body", "expiresInSeconds"],
    ],
    [
      "an exemption for an x-user-id alone",
      { identity: { kind: "user-id", value: "u" }, action: "exempt", reason: "x", expiresInSeconds: 60 },
      ["body", "identity", "kind"],
    ],
    ["a key's override on a rule counting IPs", { identity: { kind: "api-key", value: "k" }, rule: 29, action: "block", reason: "x" }, ["body", "rule"]],
  ])("is refused with 422 naming the field (%s), and changes nothing", async (_, body, loc) => {
    const { send } = await setup();
    const before = await (await admin(send, "GET", "/audit")).text();
    const rules = await (await admin(send, "GET", "/rules")).text();
    const res = await admin(send, "POST", "/overrides", { body });
    expect(res.status).toBe(422);
    const { detail } = (await res.json()) as { detail: { loc: unknown[]; msg: string; type: string }[] };
    expect(detail.map((d) => d.loc)).toContainEqual(loc);
    expect(detail.every((d) => typeof d.msg === "string" && typeof d.type === "string")).toBe(true);
    expect(await (await admin(send, "GET", "/audit")).text()).toBe(before);
    expect(await (await admin(send, "GET", "/rules")).text()).toBe(rules);
  });

  it("refuses what is not JSON (415) or not valid JSON (422)", async () => {
    const { send } = await setup();
    expect(
      (await send(adminUrl("/overrides"), { method: "POST", headers: { authorization: `Bearer ${TOKEN}`, "content-type": "text/plain" }, body: "{}" })).status,
    ).toBe(415);
    const bad = await send(adminUrl("/overrides"), {
      method: "POST",
      headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
      body: "{",
    });
    expect(bad.status).toBe(422);
    expect(await bad.json()).toEqual({ detail: [{ loc: ["body"], msg: "JSON decode error", type: "json_invalid" }] });
  });
});

describe("identity overrides", () => {
  it("answer a blocked key 403 with a problem body, on every rule counting keys, before any counter", async () => {
    const { send: base } = await setup();
    const limiter = recordingLimiter();
    const send = adminGateway({ OVERRIDES_REFRESH_MS: String(REFRESH_MS), COUNTERS: limiter.namespace });
    const K = freshIdentity().apiKey;
    expect(
      (await admin(base, "POST", "/overrides", { body: { identity: { kind: "api-key", value: K }, action: "block", reason: "abuse report 7" } })).status,
    ).toBe(201);
    for (const [method, path] of [
      ["POST", "/runs/query"],
      ["GET", "/runs/stats"],
      ["GET", "/anything"],
    ] as const) {
      const res = await send(path, { method, headers: keyed(K) });
      expect(res.status, path).toBe(403);
      expect(res.headers.get("content-type")).toBe("application/problem+json");
      const body = (await res.json()) as { status: number; detail: string };
      expect(body.status).toBe(403);
      expect(body.detail).not.toContain(K);
    }
    expect(limiter.calls.hits).toBe(0);
    expect((await runsQuery(send, freshIdentity().apiKey)).status).toBe(200);
    // Row 27 counts by IP even with a key: the key's block does not follow the header there.
    expect((await send("/public/download/x", { headers: keyed(K) })).status).toBe(200);
  });

  it("block an address on every rule: sending some x-api-key or x-user-id does not step around it", async () => {
    const { send } = await setup();
    const ip = "198.51.100.66";
    expect((await admin(send, "POST", "/overrides", { body: { identity: { kind: "ip", value: ip }, action: "block", reason: "scraper" } })).status).toBe(201);
    for (const headers of [{}, { "x-api-key": freshIdentity().apiKey }, { "x-user-id": "someone" }] as Record<string, string>[]) {
      expect((await send("/runs/query", { method: "POST", headers: { ...headers, "cf-connecting-ip": ip } })).status, JSON.stringify(headers)).toBe(403);
    }
    expect((await send("/runs/query", { method: "POST", headers: { "cf-connecting-ip": "198.51.100.67" } })).status).toBe(200);
  });

  it("exempt a user only at the user's address: the same x-user-id from elsewhere, or on a rule counting IPs, is counted", async () => {
    const { send: base } = await setup();
    const limiter = recordingLimiter();
    const send = adminGateway({ OVERRIDES_REFRESH_MS: String(REFRESH_MS), COUNTERS: limiter.namespace });
    const user = `user-${crypto.randomUUID()}`;
    const home = "203.0.113.40";
    const res = await admin(base, "POST", "/overrides", {
      body: { identity: { kind: "user-ip", value: user, ip: home }, action: "exempt", expiresInSeconds: 3600, reason: "load test" },
    });
    expect(res.status).toBe(201);
    // Row 13 (POST /runs/query, per user and IP): exempt from the user's address, no counter call.
    const at = (ip: string, path = "/runs/query", method = "POST") => send(path, { method, headers: { "x-user-id": user, "cf-connecting-ip": ip } });
    const exempt = await at(home);
    expect([exempt.status, exempt.headers.get("ratelimit")]).toEqual([200, null]);
    expect(limiter.calls.hits).toBe(0);
    // Someone else sending the user's id: counted.
    expect((await at("198.51.100.200")).headers.get("ratelimit-policy")).toBe('"runs-query-user";q=300;w=10');
    // Row 27 counts by IP even with the header: counted.
    expect((await at(home, "/public/download/x", "GET")).headers.get("ratelimit-policy")).toMatch(/q=5000;w=60$/);
    expect(limiter.calls.hits).toBe(2);
  });

  it("an x-user-id exemption stored before the scoping (on every rule) is ended when loaded, and never exempted a rule counting IPs", async () => {
    const { config, send } = await setup();
    const limiter = recordingLimiter();
    const counted = adminGateway({ OVERRIDES_REFRESH_MS: String(REFRESH_MS), COUNTERS: limiter.namespace });
    const user = `user-${crypto.randomUUID()}`;
    const subject = subjectOf("user-id", user, env.IDENTITY_HMAC_SECRET!);
    if (!subject.ok) throw new Error(subject.why);
    // Written as an older version stored it: no expiry, no rule, straight into storage.
    await runInDurableObject(config, (_instance: OverridesStore, state) => {
      state.storage.kv.put("config", {
        version: 1,
        overrides: [{ kind: "identity", id: "legacy", subject: subject.subject, action: "exempt", reason: "old", createdAt: T - 1000, createdBy: "admin" }],
      });
    });
    const anyone = { "x-user-id": user, "cf-connecting-ip": "198.51.100.9" };
    expect((await counted("/public/download/x", { headers: anyone })).headers.get("ratelimit-policy")).toMatch(/q=5000;w=60$/);
    expect((await counted("/runs/query", { method: "POST", headers: anyone })).headers.get("ratelimit-policy")).toBe('"runs-query-user";q=300;w=10');
    expect(limiter.calls.hits).toBe(2);
    const { entries } = (await (await admin(send, "GET", "/audit")).json()) as { entries: { actor: string; action: string; previous?: { id: string } }[] };
    expect(entries[0]).toMatchObject({ actor: "bounds", action: "end", previous: { id: "legacy" } });
    expect((await (await admin(send, "GET", "/overrides")).json()) as object).toMatchObject({ overrides: [] });
  });

  it("a stored count of 1e12 and an interval of 9e12 s are clamped when loaded, with an audit entry and a warning", async () => {
    const { config, send } = await setup();
    const logs: string[] = [];
    vi.spyOn(console, "log").mockImplementation((line: unknown) => void logs.push(String(line)));
    await runInDurableObject(config, (_instance: OverridesStore, state) => {
      state.storage.kv.put("config", {
        version: 3,
        overrides: [
          { kind: "rule", id: "lax", rule: 12, limits: { [region]: { count: 1e12, interval: 10 } }, reason: "old", createdAt: T - 1000, createdBy: "admin" },
          { kind: "rule", id: "slow", rule: 13, limits: { [region]: { count: 5, interval: 9e12 } }, reason: "old", createdAt: T - 1000, createdBy: "admin" },
        ],
      });
    });
    const { overrides } = (await (await admin(send, "GET", "/overrides")).json()) as { overrides: { id: string; limits: object }[] };
    expect(overrides).toEqual([
      expect.objectContaining({ id: "lax", limits: { [region]: { count: 100_000, interval: 10 } } }),
      expect.objectContaining({ id: "slow", limits: { [region]: { count: 5, interval: 86_400 } } }),
    ]);
    const warnings = logs.map((l) => JSON.parse(l)).filter((l) => l.event === "override_out_of_bounds");
    expect(warnings.map((w) => [w.id, w.action])).toEqual([
      ["lax", "clamp"],
      ["slow", "clamp"],
    ]);
    expect((await runsQuery(send, freshIdentity().apiKey)).headers.get("ratelimit-policy")).toBe('"runs-query-key";q=100000;w=10');
  });

  it("block an IPv6 prefix: every address inside it, none outside", async () => {
    const { send } = await setup();
    expect(
      (
        await admin(send, "POST", "/overrides", {
          body: { identity: { kind: "ipv6-prefix", value: "2001:db8:aa00::/40" }, action: "block", reason: "hosting range" },
        })
      ).status,
    ).toBe(201);
    const from = (ip: string) => send("/anything", { headers: { "cf-connecting-ip": ip } });
    expect((await from("2001:db8:aa00::1")).status).toBe(403);
    expect((await from("2001:db8:aaff:ffff:1:2:3:4")).status).toBe(403);
    expect((await from("2001:db8:ab00::1")).status).toBe(200);
    expect((await from("198.51.100.9")).status).toBe(200);
  });

  it("exempt a key: not counted (no counter call, no RateLimit headers) while other keys are", async () => {
    const { send: base } = await setup();
    const limiter = recordingLimiter();
    const send = adminGateway({ OVERRIDES_REFRESH_MS: String(REFRESH_MS), COUNTERS: limiter.namespace });
    const K = freshIdentity().apiKey;
    expect(
      (
        await admin(base, "POST", "/overrides", {
          body: { identity: { kind: "api-key", value: K }, rule: 28, action: "exempt", expiresInSeconds: 3600, reason: "internal monitor" },
        })
      ).status,
    ).toBe(201);
    for (let i = 0; i < 25; i++) {
      const res = await send("/runs/stats", { headers: keyed(K) });
      expect(res.status).toBe(200);
      expect(res.headers.get("ratelimit")).toBeNull();
    }
    expect(limiter.calls.hits).toBe(0);
    // Only on the rule it names: the same key elsewhere is counted.
    expect((await runsQuery(send, K)).headers.get("ratelimit-policy")).toBe('"runs-query-key";q=15;w=10');
    expect(limiter.calls.hits).toBe(1);
  });

  it("follow the stated precedence: blocked > exempt > identity limit > rule override > published", async () => {
    const { send } = await setup();
    const K = freshIdentity().apiKey;
    const post = (body: object) => admin(send, "POST", "/overrides", { body: { reason: "precedence", ...body } });
    const policy = async () => (await runsQuery(send, K)).headers.get("ratelimit-policy");

    expect(await policy()).toBe('"runs-query-key";q=15;w=10'); // published
    await post({ rule: 12, limits: { [region]: { count: 40, interval: 10 } } });
    expect(await policy()).toBe('"runs-query-key";q=40;w=10'); // rule override
    await post({ identity: { kind: "api-key", value: K }, action: "limit", limits: { [region]: { count: 25, interval: 10 } } });
    expect(await policy()).toBe('"runs-query-key";q=25;w=10'); // identity limit on every rule
    await post({ identity: { kind: "api-key", value: K }, rule: 12, action: "limit", limits: { [region]: { count: 20, interval: 10 } } });
    expect(await policy()).toBe('"runs-query-key";q=20;w=10'); // the rule-specific identity limit
    await post({ identity: { kind: "api-key", value: K }, rule: 12, action: "exempt", expiresInSeconds: 3600 }); // replaces the rule-12 limit for K
    const exempt = await runsQuery(send, K);
    expect([exempt.status, exempt.headers.get("ratelimit-policy")]).toEqual([200, null]);
    await post({ identity: { kind: "api-key", value: K }, action: "block" });
    expect((await runsQuery(send, K)).status).toBe(403);
  });
});

describe("the audit log", () => {
  it("records when, what, the previous value and the token's name, and raw keys nowhere", async () => {
    const clock = driveOverridesClock(T);
    const config = await configObject(clock);
    const send = adminGateway({ ADMIN_TOKENS: "alice=alice-token-0123456789ab, oncall=oncall-token-0123456789" });
    const logs: string[] = [];
    vi.spyOn(console, "log").mockImplementation((line: unknown) => void logs.push(String(line)));
    const K = `sk-live-${crypto.randomUUID()}`;
    const as = (token: string, method: string, path: string, body?: object) => admin(send, method, path, { token, body });

    clock.now = T + 1_000;
    const first = (await (
      await as("alice-token-0123456789ab", "POST", "/overrides", {
        identity: { kind: "api-key", value: K },
        rule: 12,
        action: "limit",
        limits: { [region]: { count: 30, interval: 10 } },
        reason: "trial",
      })
    ).json()) as { override: { id: string } };
    clock.now = T + 2_000;
    const second = (await (
      await as("oncall-token-0123456789", "POST", "/overrides", {
        identity: { kind: "api-key", value: K },
        rule: 12,
        action: "limit",
        limits: { [region]: { count: 50, interval: 10 } },
        reason: "trial, more",
      })
    ).json()) as { override: { id: string }; previous: { id: string } };
    expect(second.previous.id).toBe(first.override.id);
    clock.now = T + 3_000;
    expect((await as(TOKEN, "DELETE", `/overrides/${second.override.id}`)).status).toBe(200);

    const { entries } = (await (await as(TOKEN, "GET", "/audit")).json()) as {
      entries: {
        seq: number;
        at: number;
        actor: string;
        action: string;
        target: string;
        override?: { id: string; limits: object };
        previous?: { id: string; limits: object };
      }[];
    };
    expect(entries.map((e) => [e.at, e.actor, e.action])).toEqual([
      [T + 3_000, "admin", "end"],
      [T + 2_000, "oncall", "set"],
      [T + 1_000, "alice", "set"],
    ]);
    expect(entries[1]!.previous).toMatchObject({ id: first.override.id, limits: { [region]: { count: 30, interval: 10 } } });
    expect(entries[1]!.override).toMatchObject({ limits: { [region]: { count: 50, interval: 10 } } });
    expect(entries[0]!.previous?.id).toBe(second.override.id);
    expect(entries[2]!.target).toMatch(/^api-key [0-9a-f]{8}…[0-9a-f]{4} on rule 12$/);

    // The raw key is in no stored value, no answer, no log line.
    const stored = await runInDurableObject(config, (_instance: OverridesStore, state) => JSON.stringify([...state.storage.kv.list()]));
    expect(stored).not.toContain(K);
    expect(JSON.stringify(entries)).not.toContain(K);
    for (const line of logs) expect(line).not.toContain(K);
  });

  it("answers 404 for an override that is not active", async () => {
    const { send } = await setup();
    expect((await admin(send, "DELETE", "/overrides/no-such-id")).status).toBe(404);
  });
});

describe("GET /_tollgate/rules", () => {
  it("answers the effective table: published rows, with rule overrides laid over them", async () => {
    const { send } = await setup();
    await admin(send, "POST", "/overrides", { body: { rule: 28, mode: "shadow", limits: { [region]: { count: 3, interval: 30 } }, reason: "measuring" } });
    const { region: answered, tables } = (await (await admin(send, "GET", "/rules")).json()) as {
      region: string;
      tables: { table: string; rows: { id: number; mode: string; limit: object; published: object; override?: object }[] }[];
    };
    expect(answered).toBe(region);
    const rows = tables.flatMap((t) => t.rows);
    expect(rows.find((r) => r.id === 28)).toMatchObject({
      mode: "shadow",
      limit: { count: 3, interval: 30 },
      published: { mode: "enforce" },
      override: { reason: "measuring" },
    });
    expect(rows.find((r) => r.id === 12)).toMatchObject({ mode: "enforce", limit: { count: 15, interval: 10 } });
    expect(rows.find((r) => r.id === 12)!.override).toBeUndefined();
    expect(tables.map((t) => t.table)).toContain("hosted-api");
    expect(env.REGION).toBe(region);
  });
});
