// Every operator override kind against every rule kind, through the gateway (issue 32, finding 4,
// widened): a `limit` holds for what it names. An address's or prefix's limit holds for the whole
// address or prefix, whatever `x-user-id` (a user row) or address within the prefix each request
// carries; an override never follows a header onto a row that does not count it (docs/overrides.md).
// And (finding 7) the decision line names an identity override only where identities may go.
import { afterEach, describe, expect, it, vi } from "vitest";
import { admin, adminGateway, region, resetAdminState } from "../admin/support.ts";
import { freshIdentity } from "../support/requests.ts";

afterEach(async () => {
  vi.restoreAllMocks();
  await resetAdminState();
});

// Stricter than every published row, so a `user-id` subject (the client's own header) may have it too.
const LIMIT = { count: 2, interval: 3600 };
const LIMITED = [200, 200, 429, 429, 429];
const UNTOUCHED = [200, 200, 200, 200, 200];

/** A /48 of the documentation range no other test uses, and the i-th address inside it. */
function freshPrefix() {
  const hex = () => Math.floor(Math.random() * 0xffff).toString(16);
  const base = `2001:db8:${hex()}`;
  return { prefix: `${base}::/48`, address: (i: number) => `${base}:${hex()}::${(i + 1).toString(16)}` };
}

type Row = "key" | "user-ip" | "ip";

interface Case {
  readonly subject: "api-key" | "user-ip" | "user-id" | "ip" | "ipv6-prefix";
  readonly row: Row;
  readonly expected: readonly number[];
}

/**
 * The table: `LIMITED` where the override applies on that row kind (scope.ts), `UNTOUCHED` where
 * it does not (the published limits, far above five, apply).
 */
const CASES: readonly Case[] = [
  { subject: "api-key", row: "key", expected: LIMITED },
  { subject: "api-key", row: "user-ip", expected: UNTOUCHED },
  { subject: "api-key", row: "ip", expected: UNTOUCHED },
  { subject: "user-ip", row: "key", expected: UNTOUCHED },
  { subject: "user-ip", row: "user-ip", expected: LIMITED },
  { subject: "user-ip", row: "ip", expected: UNTOUCHED },
  { subject: "user-id", row: "key", expected: UNTOUCHED },
  { subject: "user-id", row: "user-ip", expected: LIMITED },
  { subject: "user-id", row: "ip", expected: UNTOUCHED },
  { subject: "ip", row: "key", expected: UNTOUCHED },
  { subject: "ip", row: "user-ip", expected: LIMITED },
  { subject: "ip", row: "ip", expected: LIMITED },
  { subject: "ipv6-prefix", row: "key", expected: UNTOUCHED },
  { subject: "ipv6-prefix", row: "user-ip", expected: LIMITED },
  { subject: "ipv6-prefix", row: "ip", expected: LIMITED },
];

describe(`an operator's limit holds for what it names, on every rule kind (${region})`, () => {
  it.each(CASES)("$subject limit on $row rows: $expected", async ({ subject, row, expected }) => {
    const send = adminGateway();
    const who = freshIdentity();
    const range = freshPrefix();
    const identity =
      subject === "api-key"
        ? { kind: subject, value: who.apiKey }
        : subject === "user-ip"
          ? { kind: subject, value: who.userId, ip: who.ip }
          : subject === "user-id"
            ? { kind: subject, value: who.userId }
            : subject === "ip"
              ? { kind: subject, value: who.ip }
              : { kind: subject, value: range.prefix };
    const made = await admin(send, "POST", "/overrides", { body: { identity, action: "limit", limits: { [region]: LIMIT }, reason: "abuse" } });
    expect(made.status, await made.clone().text()).toBe(201);

    // Each request varies everything the client may choose beyond what the override names: a
    // fresh user id where the override names an address, another address of the prefix.
    const headersOf = (i: number): Record<string, string> => {
      const ip = subject === "ipv6-prefix" ? range.address(i) : who.ip;
      const userId = subject === "user-ip" || subject === "user-id" ? who.userId : `${who.userId}-${i}`;
      if (row === "key") return { "x-api-key": who.apiKey, "x-user-id": userId, "cf-connecting-ip": ip };
      if (row === "user-ip") return { "x-user-id": userId, "cf-connecting-ip": ip };
      return { "cf-connecting-ip": ip };
    };
    const statuses: number[] = [];
    const policies = new Set<string>();
    for (let i = 0; i < expected.length; i++) {
      const res = await send("/anything", { headers: headersOf(i) });
      statuses.push(res.status);
      policies.add(/^"([^"]+)"/.exec(res.headers.get("ratelimit-policy") ?? "")?.[1] ?? "");
      await res.body?.cancel();
    }
    expect(statuses).toEqual(expected);
    // The row the requests met is the row the case names.
    expect([...policies]).toEqual([row === "key" ? "default-key" : row === "user-ip" ? "default-user" : "public-ip"]);
  });
});

describe(`a decision line and an identity override (${region})`, () => {
  it(region === "eu" ? "says only that an identity override applied, never its id" : "carries the identity override's id", async () => {
    const lines: string[] = [];
    vi.spyOn(console, "log").mockImplementation((line: unknown) => void lines.push(String(line)));
    const send = adminGateway({ DECISION_LOG_SAMPLE: "1" });
    const who = freshIdentity();
    const limited = await admin(send, "POST", "/overrides", {
      body: { identity: { kind: "api-key", value: who.apiKey }, action: "limit", limits: { [region]: LIMIT }, reason: "trial" },
    });
    const blocked = await admin(send, "POST", "/overrides", { body: { identity: { kind: "ip", value: "203.0.113.77" }, action: "block", reason: "scraper" } });
    const ruleWide = await admin(send, "POST", "/overrides", { body: { rule: 29, limits: { [region]: { count: 50, interval: 60 } }, reason: "launch" } });
    const ids = [limited, blocked, ruleWide].map(async (res) => {
      expect(res.status, await res.clone().text()).toBe(201);
      return ((await res.json()) as { override: { id: string } }).override.id;
    });
    const [limitId, blockId, ruleId] = await Promise.all(ids);
    lines.length = 0;

    for (let i = 0; i < 3; i++) await (await send("/anything", { headers: { "x-api-key": who.apiKey, "cf-connecting-ip": who.ip } })).body?.cancel();
    expect((await send("/anything", { headers: { "cf-connecting-ip": "203.0.113.77" } })).status).toBe(403);
    await (await send("/anything", { headers: { "cf-connecting-ip": freshIdentity().ip } })).body?.cancel();

    const decisions = lines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => "rule" in line && "event" in line);
    const byRule = (rule: number) => decisions.filter((d) => d.rule === rule);
    expect(byRule(25).map((d) => d.event)).toEqual(["admitted", "admitted", "denied"]);
    expect(byRule(29).map((d) => d.event)).toEqual(["blocked", "admitted"]);
    // A rule override names no identity: its id is on the line in both regions.
    expect(byRule(29)[1]!.override).toBe(ruleId);
    const joined = lines.join("\n");
    if (region === "eu") {
      for (const d of byRule(25)) expect(d.override).toBe("identity");
      expect(byRule(29)[0]!.override).toBe("identity");
      for (const id of [limitId, blockId]) expect(joined).not.toContain(id!);
      for (const d of decisions) expect(d).not.toHaveProperty("counter");
    } else {
      for (const d of byRule(25)) expect(d.override).toBe(limitId);
      expect(byRule(29)[0]!.override).toBe(blockId);
      for (const d of decisions) expect(d.counter).toMatch(/^us:\d+:[0-9a-f]{64}(@\d+\/\d+)?$/);
    }
    for (const raw of [who.apiKey, who.ip]) expect(joined).not.toContain(raw);
  });
});
