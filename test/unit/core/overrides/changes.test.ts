import { describe, expect, it } from "vitest";
import { endOverride, expire, nextExpiry, setOverride } from "../../../../src/core/overrides/changes.ts";
import { EMPTY_SNAPSHOT, type OverrideChange } from "../../../../src/core/overrides/types.ts";

const shadow: OverrideChange = { kind: "rule", rule: 12, mode: "shadow", reason: "incident" };
const ctx = (now: number, id: string, actor = "alice") => ({ now, id, actor });

function set(snapshot: typeof EMPTY_SNAPSHOT, change: OverrideChange, c: ReturnType<typeof ctx>) {
  const result = setOverride(snapshot, change, c);
  if (!result.ok) throw new Error(JSON.stringify(result.detail));
  return result;
}

describe("configuration changes", () => {
  it("records a new override with its id, time, author and expiry, and an audit entry", () => {
    const r = set(EMPTY_SNAPSHOT, { ...shadow, expiresInSeconds: 60 }, ctx(1_000, "a"));
    expect(r.snapshot.version).toBe(1);
    expect(r.override).toEqual({
      kind: "rule",
      rule: 12,
      mode: "shadow",
      reason: "incident",
      id: "a",
      createdAt: 1_000,
      createdBy: "alice",
      expiresAt: 61_000,
    });
    expect(r.audit).toEqual({ at: 1_000, actor: "alice", action: "set", target: "rule 12", override: r.override });
  });

  it("replaces the override with the same target, keeping it as the previous value", () => {
    const first = set(EMPTY_SNAPSHOT, shadow, ctx(1, "a"));
    const second = set(first.snapshot, { kind: "rule", rule: 12, limits: { us: { count: 30, interval: 10 } }, reason: "more" }, ctx(2, "b", "bob"));
    expect(second.snapshot.overrides.map((o) => o.id)).toEqual(["b"]);
    expect(second.previous?.id).toBe("a");
    expect(second.audit.previous?.id).toBe("a");
    const other = set(second.snapshot, { ...shadow, rule: 13 }, ctx(3, "c"));
    expect(other.snapshot.overrides.map((o) => o.id)).toEqual(["b", "c"]);
  });

  it("tells identity targets apart by subject and rule", () => {
    const subject = { kind: "api-key" as const, digest: "d".repeat(64) };
    const a = set(EMPTY_SNAPSHOT, { kind: "identity", subject, action: "block", reason: "x" }, ctx(1, "a"));
    const b = set(a.snapshot, { kind: "identity", subject, rule: 12, action: "exempt", reason: "x", expiresInSeconds: 60 }, ctx(2, "b"));
    expect(b.snapshot.overrides).toHaveLength(2);
    expect(b.audit.target).toBe("api-key dddddddd…dddd on rule 12");
    expect(a.audit.target).toBe("api-key dddddddd…dddd on every rule");
  });

  it("refuses an expiry that is not in the future", () => {
    const result = setOverride(EMPTY_SNAPSHOT, { ...shadow, expiresAt: 1_000 }, ctx(1_000, "a"));
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.detail[0]!.loc).toEqual(["body", "expiresAt"]);
  });

  it("ends an override by id, and knows nothing of unknown ids", () => {
    const a = set(EMPTY_SNAPSHOT, shadow, ctx(1, "a"));
    const ended = endOverride(a.snapshot, "a", { now: 5, actor: "bob" })!;
    expect(ended.snapshot).toEqual({ version: 2, overrides: [] });
    expect(ended.audit).toMatchObject({ at: 5, actor: "bob", action: "end", previous: { id: "a" } });
    expect(endOverride(a.snapshot, "zzz", { now: 5, actor: "bob" })).toBeUndefined();
  });

  it("expires overrides at their time, one audit entry each, and says when the next one expires", () => {
    let snapshot = set(EMPTY_SNAPSHOT, { ...shadow, expiresInSeconds: 10 }, ctx(0, "a")).snapshot;
    snapshot = set(snapshot, { ...shadow, rule: 13, expiresInSeconds: 20 }, ctx(0, "b")).snapshot;
    expect(nextExpiry(snapshot)).toBe(10_000);
    expect(expire(snapshot, 9_999).audits).toEqual([]);
    const { snapshot: after, audits } = expire(snapshot, 10_000);
    expect(after.overrides.map((o) => o.id)).toEqual(["b"]);
    expect(audits).toEqual([{ at: 10_000, actor: "expiry", action: "expire", target: "rule 12", previous: snapshot.overrides[0] }]);
    expect(nextExpiry(after)).toBe(20_000);
  });
});
