// Override requests are validated like the rule table itself (its own field schemas, then the
// strict loader), every refusal naming its field; raw identities leave hashed.
import { describe, expect, it } from "vitest";
import { parseOverrideRequest } from "../../../src/overrides/request.ts";
import { identityDigest } from "../../../src/rules/identity.ts";
import { hostedApiTable } from "../../../src/rules/hosted-api.ts";

const tables = { "hosted-api": hostedApiTable };
const parse = (body: unknown, secret?: string) => parseOverrideRequest(body, tables, secret);
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
    expect(r).toEqual({ ok: true, change: { kind: "identity", rule: 12, subject: { kind: "api-key", digest: await identityDigest({ kind: "api-key", apiKey: "sk-live-secret" }, "s3cret") }, action: "block", reason: "abuse" } });
    expect(JSON.stringify(r)).not.toContain("sk-live-secret");
  });

  it("keys an IP as counters do (an IPv6 address by its /64), and takes a digest as given", async () => {
    const v6 = await parse({ identity: { kind: "ip", value: "2001:db8:1:2::99" }, action: "exempt", reason: "x" });
    expect(v6.ok && v6.change.kind === "identity" && v6.change.subject.digest).toBe(await identityDigest({ kind: "ip", ip: "2001:db8:1:2::/64" }));
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
});
