// Precedence and expiry of overrides, on tables and times given directly.
import { describe, expect, it } from "vitest";
import { compileOverrides, resolve, ruleEffective } from "../../../../src/core/overrides/resolve.ts";
import type { RequestDigests } from "../../../../src/core/overrides/subject.ts";
import type { IdentityOverride, Override, RuleOverride } from "../../../../src/core/overrides/types.ts";
import { publishedRow } from "../../../support/rows.ts";

const NOW = 1_000_000;
const meta = { reason: "test", createdAt: 0, createdBy: "admin" };
const ruleOverride = (o: Partial<RuleOverride>): RuleOverride => ({ kind: "rule", id: `r${o.rule}`, rule: 12, ...meta, ...o });
const identity = (o: Partial<IdentityOverride> & Pick<IdentityOverride, "action">): IdentityOverride => ({
  kind: "identity",
  id: `i-${Math.random()}`,
  subject: { kind: "api-key", digest: "k" },
  ...meta,
  ...o,
});
const digests: RequestDigests = { "api-key": "k", ip: "ip", prefixes: new Map<number, string>() };
const decide = (overrides: Override[], id = 12, now = NOW, d = digests) => resolve(compileOverrides({ version: 1, overrides }), publishedRow(id), "us", d, now);

describe("resolve", () => {
  it("answers the published limit and mode when nothing applies", () => {
    expect(decide([])).toEqual({ treatment: "count", limit: { count: 15, interval: 10 }, mode: "enforce" });
  });

  it("orders blocked > exempt > identity limit > rule override > published", () => {
    const r = ruleOverride({ rule: 12, mode: "shadow", limits: { us: { count: 40, interval: 10 } } });
    const limit = identity({ action: "limit", limits: { us: { count: 25, interval: 10 } } });
    const exempt = identity({ action: "exempt", rule: 12, expiresAt: NOW + 60_000 });
    const block = identity({ action: "block", subject: { kind: "ip", digest: "ip" } });
    expect(decide([r])).toMatchObject({ treatment: "count", limit: { count: 40 }, mode: "shadow", limitBy: r, modeBy: r });
    expect(decide([r, limit])).toMatchObject({ treatment: "count", limit: { count: 25 }, mode: "shadow", limitBy: limit, modeBy: r });
    expect(decide([r, limit, exempt])).toEqual({ treatment: "exempt", by: exempt });
    expect(decide([r, limit, exempt, block])).toEqual({ treatment: "block", by: block });
  });

  it("prefers the rule-specific identity limit, then the exact identity over a prefix, then the longer prefix", () => {
    const every = identity({ action: "limit", limits: { us: { count: 50, interval: 10 } } });
    const onRule = identity({
      action: "limit",
      rule: 27,
      subject: { kind: "ipv6-prefix", digest: "p40", prefixLength: 40 },
      limits: { us: { count: 10, interval: 60 } },
    });
    const longer = identity({
      action: "limit",
      rule: 27,
      subject: { kind: "ipv6-prefix", digest: "p48", prefixLength: 48 },
      limits: { us: { count: 20, interval: 60 } },
    });
    const exact = identity({ action: "limit", rule: 27, subject: { kind: "ip", digest: "ip" }, limits: { us: { count: 30, interval: 60 } } });
    const d = {
      ip: "ip",
      prefixes: new Map([
        [40, "p40"],
        [48, "p48"],
      ]),
    };
    expect(decide([every, onRule], 27, NOW, d)).toMatchObject({ limit: { count: 10 } });
    expect(decide([onRule, longer], 27, NOW, d)).toMatchObject({ limit: { count: 20 } });
    expect(decide([onRule, longer, exact], 27, NOW, d)).toMatchObject({ limit: { count: 30 } });
  });

  it("applies a key's overrides only to rules counting keys, a block too; an address's block to every rule", () => {
    const keyLimit = identity({ action: "limit", limits: { us: { count: 3, interval: 10 } } });
    // Row 27 counts per IP: a key's limit, exemption or block does not reach it.
    expect(decide([keyLimit], 27)).toMatchObject({ limit: { count: 5000, interval: 60 } });
    expect(decide([identity({ action: "block" })], 27)).toMatchObject({ treatment: "count" });
    expect(decide([identity({ action: "exempt", expiresAt: NOW + 1000 })], 27)).toMatchObject({ treatment: "count" });
    expect(decide([identity({ action: "block" })], 12)).toMatchObject({ treatment: "block" });
    // An address cannot be forged: its block holds on a key rule too (else any x-api-key walks around it).
    expect(decide([identity({ action: "block", subject: { kind: "ip", digest: "ip" } })], 12)).toMatchObject({ treatment: "block" });
    expect(decide([identity({ action: "exempt", expiresAt: NOW + 1000, subject: { kind: "ip", digest: "ip" } })], 12)).toMatchObject({ treatment: "count" });
  });

  it("keeps a region's own limit when the override names only the other region", () => {
    expect(decide([ruleOverride({ rule: 12, limits: { eu: { count: 99, interval: 10 } } })])).toMatchObject({ limit: { count: 15, interval: 10 } });
  });

  it("stops applying an override exactly at its expiry, whatever the snapshot's age", () => {
    const o = ruleOverride({ rule: 12, mode: "shadow", expiresAt: NOW + 1 });
    expect(decide([o], 12, NOW)).toMatchObject({ mode: "shadow" });
    expect(decide([o], 12, NOW + 1)).toMatchObject({ mode: "enforce" });
    const b = identity({ action: "block", expiresAt: NOW + 1 });
    expect(decide([b], 12, NOW + 1)).toMatchObject({ treatment: "count" });
  });

  it("ruleEffective ignores identities", () => {
    expect(ruleEffective(compileOverrides({ version: 1, overrides: [identity({ action: "block" })] }), publishedRow(12), "us", NOW)).toMatchObject({
      treatment: "count",
      limit: { count: 15 },
    });
  });
});
