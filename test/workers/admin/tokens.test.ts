// Admin tokens: how they are configured and named, and how a presented one is matched.
import { describe, expect, it } from "vitest";
import { presentedToken, tokenName } from "../../../src/admin/auth.ts";
import { adminTokens } from "../../../src/admin/settings.ts";

describe("admin tokens", () => {
  it("name ADMIN_TOKEN \"admin\" and ADMIN_TOKENS by their own names", () => {
    expect(adminTokens("a".repeat(16), " alice = b-token-0123456789 ,oncall=c-token=with=equals ")).toEqual([
      { name: "admin", token: "a".repeat(16) },
      { name: "alice", token: "b-token-0123456789" },
      { name: "oncall", token: "c-token=with=equals" },
    ]);
    expect(adminTokens(undefined, undefined)).toEqual([]);
  });

  it.each([
    [undefined, "Alice=x".padEnd(30, "x"), /ADMIN_TOKENS entry 1 is not name=token/],
    [undefined, "no-equals-sign-here-at-all", /ADMIN_TOKENS entry 1/],
    ["s".repeat(15), undefined, /"admin" is shorter than 16/],
    ["a".repeat(16), `admin=${"b".repeat(16)}`, /"admin" is used twice/],
  ])("refuse %s / %s, naming the entry, never the token", (single, named, why) => {
    let message = "";
    try {
      adminTokens(single, named);
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(why);
    expect(message).not.toContain("x".repeat(10));
    expect(message).not.toContain("s".repeat(15));
  });

  it("match a presented token to its name (every token compared, in constant time by digest)", async () => {
    const tokens = adminTokens("a".repeat(16), `alice=${"b".repeat(16)}`);
    expect(await tokenName("b".repeat(16), tokens)).toBe("alice");
    expect(await tokenName("a".repeat(16), tokens)).toBe("admin");
    expect(await tokenName("a".repeat(15), tokens)).toBeUndefined();
    expect(await tokenName("", tokens)).toBeUndefined();
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
