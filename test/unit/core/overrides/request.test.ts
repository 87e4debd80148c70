// Override requests are validated like the rule table itself (its own field schemas, then the
// strict loader), every refusal naming its field; raw identities leave hashed.
import { describe, expect, it } from "vitest";
import { parseOverrideRequest } from "../../../../src/core/overrides/request.ts";
import { identityDigest } from "../../../../src/core/rules/identity.ts";
import { hostedApiTable } from "../../../../src/core/rules/hosted-api.ts";

const tables = { "hosted-api": hostedApiTable };
const SECRET = "a-test-secret-of-at-least-32-bytes!!";
const parse = (body: unknown, secret = SECRET) => parseOverrideRequest(body, tables, secret);
const locs = async (body: unknown) => {
  const r = await parse(body);
  if (r.ok) throw new Error("accepted");
  return r.detail.map((d) => d.loc);
};

describe("parseOverrideRequest", () => {
  it("accepts a rule override and keeps only the regions it names", async () => {
    expect(await parse({ rule: 12, mode: "shadow", limits: { eu: { count: 30, interval: 10 } }, reason: " incident ", expiresInSeconds: 600 })).toEqual({
      ok: true,
      change: { kind: "rule", rule: 12, mode: "shadow", limits: { eu: { count: 30, interval: 10 } }, reason: "incident", expiresInSeconds: 600 },
    });
  });

  it("hashes a raw identity with the gateway's digest, and keeps no raw value", async () => {
    const r = await parse({ identity: { kind: "api-key", value: "sk-live-secret" }, rule: 12, action: "block", reason: "abuse" }, "s3cret");
    expect(r).toEqual({
      ok: true,
      change: {
        kind: "identity",
        rule: 12,
        subject: { kind: "api-key", digest: await identityDigest({ kind: "api-key", apiKey: "sk-live-secret" }, "s3cret") },
        action: "block",
        reason: "abuse",
      },
    });
    expect(JSON.stringify(r)).not.toContain("sk-live-secret");
  });

  it("keys an IP as counters do (an IPv6 address by its /64), and takes a digest as given", async () => {
    const v6 = await parse({ identity: { kind: "ip", value: "2001:db8:1:2::99" }, action: "exempt", reason: "x" });
    expect(v6.ok && v6.change.kind === "identity" && v6.change.subject.digest).toBe(identityDigest({ kind: "ip", ip: "2001:db8:1:2::/64" }, SECRET));
    const byHash = await parse({ identity: { kind: "api-key", hash: "a".repeat(64) }, action: "exempt", reason: "x" });
    expect(byHash.ok && byHash.change.kind === "identity" && byHash.change.subject).toEqual({ kind: "api-key", digest: "a".repeat(64) });
  });

  it.each([
    [{ rule: 12, limits: { us: { count: 0, interval: 10 } }, reason: "x" }, ["body", "limits", "us", "count"]],
    [{ rule: 12, limits: { us: { count: 1 } }, reason: "x" }, ["body", "limits", "us", "interval"]],
    [{ rule: 12, limits: { mars: { count: 1, interval: 1 } }, reason: "x" }, ["body", "limits", "mars"]],
    [{ rule: 12, limits: {}, reason: "x" }, ["body", "limits"]],
    [{ rule: 12, reason: "x" }, ["body", "mode"]],
    [{ rule: 12, mode: "shadow", reason: "" }, ["body", "reason"]],
    [{ rule: 12, mode: "shadow", reason: "x", extra: 1 }, ["body", "extra"]],
    [{ rule: 12, mode: "shadow", reason: "x", expiresAt: "tomorrow" }, ["body", "expiresAt"]],
    [{ rule: 12, mode: "shadow", reason: "x", expiresAt: "2030-01-01T00:00:00Z", expiresInSeconds: 5 }, ["body", "expiresInSeconds"]],
    [{ rule: 999, mode: "shadow", reason: "x" }, ["body", "rule"]],
    [{ identity: { kind: "api-key" }, action: "block", reason: "x" }, ["body", "identity"]],
    [{ identity: { kind: "api-key", value: "a", hash: "b".repeat(64) }, action: "block", reason: "x" }, ["body", "identity"]],
    [{ identity: { kind: "api-key", hash: "XYZ" }, action: "block", reason: "x" }, ["body", "identity", "hash"]],
    [{ identity: { kind: "api-key", value: "a,b" }, action: "block", reason: "x" }, ["body", "identity", "value"]],
    [{ identity: { kind: "face", value: "a" }, action: "block", reason: "x" }, ["body", "identity", "kind"]],
    [{ identity: { kind: "api-key", value: "a" }, action: "block", limits: { us: { count: 1, interval: 1 } }, reason: "x" }, ["body", "limits"]],
    [{ identity: { kind: "ipv6-prefix", hash: "c".repeat(64) }, action: "block", reason: "x" }, ["body", "identity", "hash"]],
  ])("refuses %j naming %j", async (body, loc) => {
    expect(await locs(body)).toContainEqual(loc);
  });

  it.each([
    ["a count of 1e12", { rule: 12, limits: { us: { count: 1e12, interval: 10 } }, reason: "x" }, ["body", "limits", "us", "count"]],
    ["a count one above the bound", { rule: 12, limits: { us: { count: 100_001, interval: 10 } }, reason: "x" }, ["body", "limits", "us", "count"]],
    ["an interval of 9e12 s", { rule: 12, limits: { eu: { count: 5, interval: 9e12 } }, reason: "x" }, ["body", "limits", "eu", "interval"]],
    [
      "an interval one above a day",
      { identity: { kind: "api-key", value: "k" }, action: "limit", limits: { us: { count: 5, interval: 86_401 } }, reason: "x" },
      ["body", "limits", "us", "interval"],
    ],
  ])("refuses %s as pydantic would (less_than_equal)", async (_, body, loc) => {
    const r = await parse(body);
    expect(r.ok).toBe(false);
    if (!r.ok)
      expect(r.detail).toContainEqual({ loc, msg: expect.stringMatching(/^Input should be less than or equal to (100000|86400)$/), type: "less_than_equal" });
  });

  it("accepts the bounds themselves", async () => {
    expect((await parse({ rule: 12, limits: { us: { count: 100_000, interval: 86_400 } }, reason: "x" })).ok).toBe(true);
  });

  it("hashes a user at an address exactly as a user row's counter does", async () => {
    const r = await parse({ identity: { kind: "user-ip", value: "u-1", ip: "2001:db8:1:2::99" }, action: "exempt", reason: "x" });
    expect(r.ok && r.change.kind === "identity" && r.change.subject).toEqual({
      kind: "user-ip",
      digest: identityDigest({ kind: "user-ip", userId: "u-1", ip: "2001:db8:1:2::/64" }, SECRET),
    });
  });

  it.each([
    ["a user-ip without its address", { identity: { kind: "user-ip", value: "u" }, action: "block", reason: "x" }, ["body", "identity", "ip"]],
    [
      "a user-ip with an address that is not one",
      { identity: { kind: "user-ip", value: "u", ip: "nope" }, action: "block", reason: "x" },
      ["body", "identity", "ip"],
    ],
    ["an address beside a key", { identity: { kind: "api-key", value: "k", ip: "198.51.100.1" }, action: "block", reason: "x" }, ["body", "identity", "ip"]],
    [
      "an x-user-id exemption",
      { identity: { kind: "user-id", value: "u" }, action: "exempt", reason: "x", expiresInSeconds: 60 },
      ["body", "identity", "kind"],
    ],
    [
      "an x-user-id limit above a user row's",
      { identity: { kind: "user-id", value: "u" }, action: "limit", limits: { us: { count: 301, interval: 10 } }, rule: 13, reason: "x" },
      ["body", "limits", "us"],
    ],
    [
      "an x-user-id limit above any user row's (no rule named)",
      { identity: { kind: "user-id", value: "u" }, action: "limit", limits: { us: { count: 40, interval: 60 } }, reason: "x" },
      ["body", "limits", "us"],
    ],
    ["a key override on a rule counting IPs", { identity: { kind: "api-key", value: "k" }, rule: 29, action: "exempt", reason: "x" }, ["body", "rule"]],
    [
      "a user override on a rule counting keys",
      { identity: { kind: "user-ip", value: "u", ip: "198.51.100.1" }, rule: 12, action: "block", reason: "x" },
      ["body", "rule"],
    ],
    [
      "an address's limit on a rule counting keys",
      { identity: { kind: "ip", value: "198.51.100.1" }, rule: 12, action: "limit", limits: { us: { count: 1, interval: 10 } }, reason: "x" },
      ["body", "rule"],
    ],
  ])("refuses %s", async (_, body, loc) => {
    expect(await locs(body)).toContainEqual(loc);
  });

  it("accepts what scope allows: an address's block on a key rule, a stricter x-user-id limit", async () => {
    expect((await parse({ identity: { kind: "ip", value: "198.51.100.1" }, rule: 12, action: "block", reason: "x" })).ok).toBe(true);
    expect(
      (await parse({ identity: { kind: "user-id", value: "u" }, rule: 13, action: "limit", limits: { us: { count: 10, interval: 60 } }, reason: "x" })).ok,
    ).toBe(true);
    expect((await parse({ identity: { kind: "user-id", value: "u" }, action: "block", reason: "x" })).ok).toBe(true);
  });
});
