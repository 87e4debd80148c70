// Admin tokens: how they are configured, named and given a role, and how a presented one is matched.
import { describe, expect, it } from "vitest";
import { matchToken, presentedToken } from "../../../src/admin/auth.ts";
import { adminTokens } from "../../../src/admin/tokens.ts";

describe("admin tokens", () => {
  it('name ADMIN_TOKEN "admin" and ADMIN_TOKENS by their own names', () => {
    expect(adminTokens("a".repeat(16), " alice = b-token-0123456789 ,oncall=c-token=with=equals ")).toEqual([
      { name: "admin", token: "a".repeat(16), role: "operator" },
      { name: "alice", token: "b-token-0123456789", role: "operator" },
      { name: "oncall", token: "c-token=with=equals", role: "operator" },
    ]);
    expect(adminTokens(undefined, undefined)).toEqual([]);
  });

  it("give ADMIN_READ_TOKENS the read role, named the same way", () => {
    expect(adminTokens(undefined, `alice=${"a".repeat(16)}`, ` prometheus = ${"p".repeat(16)}, grafana=${"g".repeat(20)}`)).toEqual([
      { name: "alice", token: "a".repeat(16), role: "operator" },
      { name: "prometheus", token: "p".repeat(16), role: "read" },
      { name: "grafana", token: "g".repeat(20), role: "read" },
    ]);
  });

  it.each([
    [undefined, "Alice=x".padEnd(30, "x"), /ADMIN_TOKENS entry 1 is not name=token/, undefined],
    [undefined, "no-equals-sign-here-at-all", /ADMIN_TOKENS entry 1/, undefined],
    ["s".repeat(15), undefined, /"admin" is shorter than 16/, undefined],
    ["a".repeat(16), `admin=${"b".repeat(16)}`, /"admin" is used twice/, undefined],
    [undefined, `alice=${"b".repeat(16)}`, /"alice" is used twice/, `alice=${"c".repeat(16)}`],
    [undefined, undefined, /ADMIN_READ_TOKENS entry 2 is not name=token/, `prom=${"c".repeat(16)}, ${"x".repeat(20)}`],
    [undefined, undefined, /"metrics" is shorter than 16/, `metrics=${"s".repeat(15)}`],
    // One secret as an operator's and a reader's: which role it has would be left to chance.
    [undefined, `alice=${"x".repeat(16)}`, /"alice" and "prom" are the same token/, `prom=${"x".repeat(16)}`],
  ])("refuse %s / %s / %s, naming the entry, never the token", (single, named, why, readOnly) => {
    let message = "";
    try {
      adminTokens(single, named, readOnly);
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(why);
    expect(message).not.toContain("x".repeat(10));
    expect(message).not.toContain("s".repeat(15));
  });

  it("match a presented token to its name (every token compared, in constant time by digest)", async () => {
    const tokens = adminTokens("a".repeat(16), `alice=${"b".repeat(16)}`);
    expect(await matchToken("b".repeat(16), tokens)).toMatchObject({ name: "alice", role: "operator" });
    expect(await matchToken("a".repeat(16), tokens)).toMatchObject({ name: "admin", role: "operator" });
    expect(await matchToken("a".repeat(15), tokens)).toBeUndefined();
    expect(await matchToken("", tokens)).toBeUndefined();
    expect(await matchToken("r".repeat(16), adminTokens(undefined, undefined, `prom=${"r".repeat(16)}`))).toMatchObject({ name: "prom", role: "read" });
  });

  it("read Bearer, and Basic with the token as password", () => {
    expect(presentedToken("Bearer abc")).toBe("abc");
    expect(presentedToken("bearer   abc")).toBe("abc");
    expect(presentedToken(`Basic ${btoa("anyone:p:w")}`)).toBe("p:w");
    expect(presentedToken(`Basic ${btoa("no-colon")}`)).toBeUndefined();
    expect(presentedToken("Basic !!!")).toBeUndefined();
    expect(presentedToken("Bearer")).toBeUndefined();
    expect(presentedToken(undefined)).toBeUndefined();
  });
});
