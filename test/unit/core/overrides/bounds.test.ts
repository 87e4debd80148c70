// The bounds on what an override may set, and what becomes of overrides stored before them.
import { describe, expect, it } from "vitest";
import { exemptionEnd, MAX_COUNT, MAX_EXEMPTION_S, MAX_INTERVAL_S, noLaxer, withinBounds } from "../../../../src/core/overrides/bounds.ts";
import { boundSnapshot, expire, setOverride } from "../../../../src/core/overrides/changes.ts";
import { compileOverrides } from "../../../../src/core/overrides/resolve.ts";
import type { IdentityOverride, Override, RuleOverride } from "../../../../src/core/overrides/types.ts";

const DAY = 86_400_000;
const NOW = 1_900_000_000_000;
const meta = { reason: "old", createdAt: NOW - 40 * DAY, createdBy: "admin" };
const subject = { kind: "api-key" as const, digest: "d".repeat(64) };

describe("bounds", () => {
  it("sit relative to the published tables: 10x their largest count, 24x their longest interval", () => {
    expect(MAX_COUNT).toBe(10 * 10_000);
    expect(MAX_INTERVAL_S).toBe(24 * 3_600);
  });

  it("noLaxer: no higher count and no shorter interval", () => {
    expect(noLaxer({ count: 15, interval: 10 }, { count: 15, interval: 10 })).toBe(true);
    expect(noLaxer({ count: 14, interval: 60 }, { count: 15, interval: 10 })).toBe(true);
    expect(noLaxer({ count: 16, interval: 10 }, { count: 15, interval: 10 })).toBe(false);
    expect(noLaxer({ count: 1, interval: 9 }, { count: 15, interval: 10 })).toBe(false);
  });
});

describe("an exemption's expiry", () => {
  const exempt = { kind: "identity" as const, subject, action: "exempt" as const, reason: "monitor" };
  const ctx = { now: NOW, actor: "alice", id: "x" };
  const refusal = (change: Parameters<typeof setOverride>[1]) => {
    const r = setOverride({ version: 0, overrides: [] }, change, ctx);
    return r.ok ? undefined : r.detail[0];
  };

  it("is required, and at most 30 days ahead; a block may be permanent", () => {
    expect(refusal(exempt)).toMatchObject({ loc: ["body", "expiresAt"], type: "value_error" });
    expect(refusal({ ...exempt, expiresInSeconds: MAX_EXEMPTION_S + 1 })).toMatchObject({ loc: ["body", "expiresInSeconds"] });
    expect(refusal({ ...exempt, expiresAt: NOW + MAX_EXEMPTION_S * 1000 + 1 })).toMatchObject({ loc: ["body", "expiresAt"] });
    expect(refusal({ ...exempt, expiresInSeconds: MAX_EXEMPTION_S })).toBeUndefined();
    expect(refusal({ ...exempt, action: "block" })).toBeUndefined();
  });

  it("any expiry lies at most 366 days ahead", () => {
    expect(refusal({ kind: "rule", rule: 12, mode: "shadow", reason: "x", expiresAt: NOW + 367 * DAY })).toMatchObject({ loc: ["body", "expiresAt"] });
    expect(refusal({ kind: "rule", rule: 12, mode: "shadow", reason: "x", expiresAt: NOW + 366 * DAY })).toBeUndefined();
  });
});

describe("overrides stored before the bounds", () => {
  const absurd: RuleOverride = { kind: "rule", id: "r", rule: 12, limits: { us: { count: 1e12, interval: 10 }, eu: { count: 5, interval: 9e12 } }, ...meta };
  const permanentExemption: IdentityOverride = { kind: "identity", id: "e", subject, action: "exempt", ...meta, createdAt: NOW - DAY };
  const oldExemption: IdentityOverride = { ...permanentExemption, id: "old", subject: { ...subject, digest: "e".repeat(64) }, createdAt: NOW - 40 * DAY };
  const userExemption: IdentityOverride = {
    kind: "identity",
    id: "u",
    subject: { kind: "user-id", digest: "f".repeat(64) },
    action: "exempt",
    ...meta,
    expiresAt: NOW + DAY,
  };
  const fine: IdentityOverride = { kind: "identity", id: "b", subject, action: "block", ...meta };

  it("are clamped: a count to the largest allowed, an interval to a day, an exemption to 30 days after its creation", () => {
    expect(withinBounds(absurd)).toMatchObject({ limits: { us: { count: MAX_COUNT, interval: 10 }, eu: { count: 5, interval: MAX_INTERVAL_S } } });
    expect(withinBounds(permanentExemption)).toMatchObject({ expiresAt: exemptionEnd(NOW - DAY) });
    expect(withinBounds(fine)).toBe(fine);
  });

  it("an x-user-id exemption cannot be made safe: it is ended", () => {
    expect(withinBounds(userExemption)).toBeUndefined();
  });

  it("on load, each change gets an audit entry (actor bounds) and a new version; an exemption past 30 days then expires", () => {
    const stored = { version: 7, overrides: [absurd, permanentExemption, oldExemption, userExemption, fine] as Override[] };
    const { snapshot, audits } = boundSnapshot(stored, NOW);
    expect(snapshot.version).toBe(8);
    expect(audits.map((a) => [a.actor, a.action, a.previous?.id])).toEqual([
      ["bounds", "clamp", "r"],
      ["bounds", "clamp", "e"],
      ["bounds", "clamp", "old"],
      ["bounds", "end", "u"],
    ]);
    expect(snapshot.overrides.map((o) => o.id)).toEqual(["r", "e", "old", "b"]);
    // The exemption made 40 days ago is now due: the store's expiry drops it with its own entry.
    const expired = expire(snapshot, NOW);
    expect(expired.snapshot.overrides.map((o) => o.id)).toEqual(["r", "e", "b"]);
    expect(expired.audits.map((a) => [a.action, a.previous?.id])).toEqual([["expire", "old"]]);
    // Loading again changes nothing more.
    expect(boundSnapshot(expired.snapshot, NOW).audits).toEqual([]);
  });

  it("an isolate holds any copy to the bounds too (a data center's copy of an older store's answer)", () => {
    const compiled = compileOverrides({ version: 1, overrides: [absurd, userExemption] });
    expect(compiled.overrides).toHaveLength(1);
    expect(compiled.byRule.get(12)?.limits?.us).toEqual({ count: MAX_COUNT, interval: 10 });
  });
});
