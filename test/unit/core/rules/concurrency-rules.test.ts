// Concurrency rows of a rule file (docs/counting.md, "Concurrency"): loaded as strictly as the
// rate-limit rows, one case per failure, and the lookup that finds a held request's row.
import { describe, expect, it } from "vitest";
import data from "../../../../rules/hosted-api.json" with { type: "json" };
import { concurrencyRuleFor } from "../../../../src/core/rules/concurrency.ts";
import { loadRuleTable } from "../../../../src/core/rules/load.ts";
import { loaderProblems } from "./loader-problems.ts";
import { checkedTogether, ruleTables } from "../../../../src/core/rules/tables.ts";
import { hostedApiTable } from "../../../../src/core/rules/hosted-api.ts";

type Json = { table: string; rules: Array<Record<string, any>>; concurrency?: Array<Record<string, any>>; [k: string]: unknown };

const STREAM = { method: "GET", path: { kind: "template", pattern: "/threads/{uuid}/stream/events" } };
const row = (id: number, name: string, identity: string, count: number) => ({
  id,
  name,
  category: "Held open",
  match: [STREAM],
  identity,
  limits: { us: { count }, eu: { count } },
  mode: "enforce",
});

/** The published table with three concurrency rows, one per identity kind. */
function fresh(): Json {
  const file = structuredClone(data) as Json;
  file.concurrency = [row(901, "held-key", "api-key", 3), row(902, "held-user", "user-ip", 2), row(903, "held-ip", "ip", 1)];
  return file;
}

function problemsOf(mutate: (file: Json) => void): readonly string[] {
  const file = fresh();
  mutate(file);
  return loaderProblems(file);
}

const UUID = "67e55044-10b1-426f-9247-bb680e5fe0c8";

describe("concurrency rows", () => {
  it("load with their limits and mode, enforce by default; a file without any has none", () => {
    const file = fresh();
    delete file.concurrency![0]!.mode;
    const table = loadRuleTable(file, "rules/test.json");
    expect(table.concurrency.map((r) => [r.id, r.name, r.identity, r.limits.us.count, r.mode])).toEqual([
      [901, "held-key", "api-key", 3, "enforce"],
      [902, "held-user", "user-ip", 2, "enforce"],
      [903, "held-ip", "ip", 1, "enforce"],
    ]);
    expect(table.concurrency[0]!.matchers).toEqual([STREAM]);
    expect(loadRuleTable(data, "rules/hosted-api.json").concurrency).toEqual([]);
  });

  const cases: Array<[string, (f: Json) => void, RegExp]> = [
    [
      "an unknown key in a row",
      (f) => (f.concurrency![0]!.interval = 10),
      /concurrency row 901 \("held-key"\), field \(the row\): unknown key\(s\) "interval"/,
    ],
    [
      "an unknown key in a limit",
      (f) => (f.concurrency![1]!.limits.eu.interval = 10),
      /concurrency row 902 \("held-user"\), field limits\.eu: unknown key\(s\) "interval"/,
    ],
    ["a zero count", (f) => (f.concurrency![2]!.limits.us.count = 0), /concurrency row 903 \("held-ip"\), field limits\.us\.count: must be a positive integer/],
    ["a fractional count", (f) => (f.concurrency![0]!.limits.eu.count = 2.5), /concurrency row 901 .*field limits\.eu\.count/],
    ["a missing region", (f) => delete f.concurrency![0]!.limits.eu, /concurrency row 901 .*field limits\.eu/],
    ["an unknown identity", (f) => (f.concurrency![0]!.identity = "cookie"), /concurrency row 901 .*field identity/],
    ["no matcher", (f) => (f.concurrency![0]!.match = []), /concurrency row 901 .*field match/],
    [
      "a duplicate id among concurrency rows",
      (f) => (f.concurrency![1]!.id = 901),
      /concurrency row 901 \("held-user"\), field id: duplicate id 901 \(also at concurrency\[0\]\)/,
    ],
    ["an id a rate-limit row has", (f) => (f.concurrency![0]!.id = 12), /concurrency row 12 \("held-key"\), field id: duplicate id 12 \(also at rules\[11\]\)/],
    ["ids out of table order", (f) => (f.concurrency![2]!.id = 900), /concurrency row 900 .*field id: ids must follow table order/],
    [
      "a duplicate name among concurrency rows",
      (f) => (f.concurrency![2]!.name = "held-key"),
      /concurrency row 903 \("held-key"\), field name: duplicate name "held-key" \(also at concurrency\[0\]\)/,
    ],
    [
      "a name a rate-limit row has",
      (f) => (f.concurrency![0]!.name = "runs-query-key"),
      /concurrency row 901 .*field name: duplicate name "runs-query-key" \(also at rules\[11\]\)/,
    ],
    ["a name that is not lowercase and dashes", (f) => (f.concurrency![0]!.name = "Held Key"), /concurrency row 901 .*field name/],
    [
      "a non-canonical pattern",
      (f) => (f.concurrency![0]!.match = [{ path: { kind: "prefix", pattern: "/threads/" } }]),
      /concurrency row 901 .*field match\[0\]\.path\.pattern: .*not canonical/,
    ],
    [
      "a placeholder outside a template",
      (f) => (f.concurrency![0]!.match = [{ path: { kind: "exact", pattern: "/threads/{uuid}" } }]),
      /concurrency row 901 .*only allowed in kind "template"/,
    ],
    [
      "a pattern written under an alias root",
      (f) => (f.concurrency![0]!.match = [{ path: { kind: "template", pattern: "/api/v1/threads/{uuid}/stream/events" } }]),
      /concurrency row 901 .*field match\[0\]\.path\.pattern: .*starts with alias root "\/api\/v1"/,
    ],
    [
      "a row an earlier one makes unreachable",
      (f) => f.concurrency!.push(row(904, "held-key-again", "api-key", 9)),
      /concurrency row 904 .*field match\[0\]: unreachable, concurrency row 901 has the same matcher and identity/,
    ],
    ["a concurrency list that is not a list", (f) => (f.concurrency = {} as never), /field concurrency/],
  ];
  it.each(cases)("refuses %s, naming row and field", (_, mutate, expected) => {
    expect(problemsOf(mutate).join("\n")).toMatch(expected);
  });

  it("refuses a concurrency row's id or name that another table uses, in either kind of row", () => {
    const agent = ruleTables["agent-server"];
    const held = loadRuleTable(fresh(), "rules/test.json").concurrency[0]!;
    const byId = { ...agent, concurrency: [{ ...held, id: 12 }] };
    expect(() => checkedTogether({ "hosted-api": hostedApiTable, "agent-server": byId })).toThrow(/rule id 12 is in both hosted-api and agent-server/);
    const byName = { ...agent, concurrency: [{ ...held, name: "runs-query-key" }] };
    expect(() => checkedTogether({ "hosted-api": hostedApiTable, "agent-server": byName })).toThrow(
      /rule name "runs-query-key" is in both hosted-api and agent-server/,
    );
    // Two tables' concurrency rows clashing with each other.
    const other = { ...hostedApiTable, concurrency: [held] };
    const same = { ...agent, concurrency: [{ ...held }] };
    expect(() => checkedTogether({ "hosted-api": other, "agent-server": same })).toThrow(/rule id 901 is in both hosted-api and agent-server/);
  });
});

describe("concurrencyRuleFor", () => {
  const table = loadRuleTable(fresh(), "rules/test.json");

  it("finds the row of the identity kind the request was classified by, for a matching method and path", () => {
    const path = `/threads/${UUID}/stream/events`;
    expect(concurrencyRuleFor(table, { method: "GET", path, identity: "api-key" })?.rule.name).toBe("held-key");
    expect(concurrencyRuleFor(table, { method: "GET", path, identity: "user-ip" })?.rule.name).toBe("held-user");
    expect(concurrencyRuleFor(table, { method: "GET", path, identity: "ip" })?.rule.name).toBe("held-ip");
  });

  it("matches as the rules do: GET covers HEAD, methods in any case, templates only on UUIDs, under alias roots too", () => {
    const path = `/threads/${UUID}/stream/events`;
    expect(concurrencyRuleFor(table, { method: "get", path, identity: "ip" })?.rule.id).toBe(903);
    expect(concurrencyRuleFor(table, { method: "HEAD", path, identity: "ip" })?.rule.id).toBe(903);
    expect(concurrencyRuleFor(table, { method: "POST", path, identity: "ip" })).toBeUndefined();
    expect(concurrencyRuleFor(table, { method: "GET", path: "/threads/not-a-uuid/stream/events", identity: "ip" })).toBeUndefined();
    expect(concurrencyRuleFor(table, { method: "GET", path: `/threads/${UUID}/stream`, identity: "ip" })).toBeUndefined();
    expect(concurrencyRuleFor(table, { method: "GET", path: `/api/v1${path}`, identity: "ip" })).toMatchObject({ rule: { id: 903 }, root: "/api/v1" });
  });

  it("finds nothing in a table without concurrency rows", () => {
    expect(concurrencyRuleFor(hostedApiTable, { method: "GET", path: `/threads/${UUID}/stream/events`, identity: "api-key" })).toBeUndefined();
  });

  it("the agent server's table caps its event stream per key, per user and address, and per address", () => {
    const agent = ruleTables["agent-server"];
    const path = `/threads/${UUID}/stream/events`;
    const key = concurrencyRuleFor(agent, { method: "GET", path, identity: "api-key" })!.rule;
    const user = concurrencyRuleFor(agent, { method: "GET", path, identity: "user-ip" })!.rule;
    const ip = concurrencyRuleFor(agent, { method: "GET", path, identity: "ip" })!.rule;
    for (const rule of [key, user, ip]) {
      expect(rule.mode).toBe("enforce");
      expect(rule.limits.us).toEqual(rule.limits.eu);
    }
    // Reachable by one client in a test (the check opens sockets until refused), and
    // ordered as a key is trusted more than a user's address, and that more than a bare address.
    expect(key.limits.us.count).toBeLessThan(300);
    expect(key.limits.us.count).toBeGreaterThan(user.limits.us.count);
    expect(user.limits.us.count).toBeGreaterThan(ip.limits.us.count);
    expect(agent.concurrency.every((rule) => rule.id > 200 && rule.id < 300)).toBe(true);
  });
});
