import { describe, expect, it } from "vitest";
import { checkedTogether, classifiers, ruleTables } from "../../../../src/core/rules/tables.ts";
import { hostedApiTable } from "../../../../src/core/rules/hosted-api.ts";
import { publishedRow } from "../../../support/rows.ts";

describe("one rule table per upstream", () => {
  it("the control plane and the agent server get the published path-free rows: high throughput, default and catch-all", () => {
    const tiers = (name: "control-plane" | "agent-server") => ruleTables[name].rules.map((r) => ({ tier: r.tier, identity: r.identity, limits: r.limits }));
    const tierOf = (id: number) => ({ tier: publishedRow(id).tier, identity: publishedRow(id).identity, limits: publishedRow(id).limits });
    expect(tiers("control-plane")).toEqual([tierOf(1), tierOf(25), tierOf(29)]);
    expect(tiers("agent-server")).toEqual([tierOf(1), tierOf(25), tierOf(26), tierOf(29)]);
  });

  it("row 1 (OPTIONS and /info, high throughput) applies to every upstream, so a preflight is never a default-tier request", () => {
    const row1 = publishedRow(1);
    for (const name of ["control-plane", "agent-server"] as const) {
      const highThroughput = ruleTables[name].rules.find((r) => r.category === row1.category)!;
      expect(highThroughput).toMatchObject({ identity: row1.identity, limits: row1.limits, tier: row1.tier });
      // Its path-free matcher and /info; the hosted API's /v1/metadata/submit is a path of its own.
      expect(highThroughput.matchers).toEqual(row1.matchers.slice(0, 2));
      const facts = { path: "/v2/deployments", apiKey: "k", userId: "u", clientIp: "203.0.113.7" };
      expect(classifiers[name].classify({ ...facts, method: "OPTIONS" }).rule.id).toBe(highThroughput.id);
      expect(classifiers[name].classify({ ...facts, method: "GET", path: "/info" }).rule.id).toBe(highThroughput.id);
      expect(classifiers[name].classify({ ...facts, method: "GET" }).rule.tier).toBe("default");
    }
  });

  it("classify every request: a key meets the default, an anonymous caller the catch-all", () => {
    const facts = { method: "POST", path: "/runs/wait", apiKey: null, userId: null, clientIp: "203.0.113.7" };
    expect(classifiers["agent-server"].classify({ ...facts, apiKey: "k" }).rule.id).toBe(201);
    expect(classifiers["agent-server"].classify({ ...facts, userId: "u" }).rule.id).toBe(202);
    expect(classifiers["agent-server"].classify(facts).rule.id).toBe(203);
    expect(classifiers["control-plane"].classify({ ...facts, path: "/v2/deployments", apiKey: "k" }).rule.id).toBe(101);
    expect(classifiers["hosted-api"].classify({ ...facts, apiKey: "k" }).rule.id).toBe(25);
  });

  it("refuses a rule id or name used by two tables (counters and policies are named by them)", () => {
    const agent = ruleTables["agent-server"];
    const clash = {
      ...agent,
      rules: [
        { ...agent.rules[0]!, id: 12 },
        { ...agent.rules[1]!, name: "runs-query-key" },
      ],
    };
    expect(() => checkedTogether({ "hosted-api": hostedApiTable, "agent-server": clash })).toThrow(
      /rule id 12 is in both hosted-api and agent-server[\s\S]*rule name "runs-query-key" is in both hosted-api and agent-server/,
    );
  });
});
