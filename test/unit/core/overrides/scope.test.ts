// Which rules an identity override reaches: every subject kind against every kind of rule, for
// each action. The expected table is written out here, not derived from src/core/overrides/scope.ts.
import { describe, expect, it } from "vitest";
import { compileOverrides, resolve } from "../../../../src/core/overrides/resolve.ts";
import { countedDigest } from "../../../../src/core/overrides/scope.ts";
import type { RequestDigests } from "../../../../src/core/overrides/subject.ts";
import type { IdentityOverride, SubjectKind } from "../../../../src/core/overrides/types.ts";
import { publishedRow } from "../../../support/rows.ts";

const NOW = 1_000_000;
/** Row 12 counts per key (15/10 s), row 13 per user and IP (300/10 s), row 29 per IP (100/60 s). */
const KEY_RULE = 12;
const USER_RULE = 13;
const IP_RULE = 29;

/** A request carrying every identity at once, so only scope decides what applies. */
const digests: RequestDigests = { "api-key": "k", "user-ip": "ui", "user-id": "u", ip: "ip", prefixes: new Map([[48, "p48"]]) };
const subjects: Record<SubjectKind, IdentityOverride["subject"]> = {
  "api-key": { kind: "api-key", digest: "k" },
  "user-ip": { kind: "user-ip", digest: "ui" },
  "user-id": { kind: "user-id", digest: "u" },
  ip: { kind: "ip", digest: "ip" },
  "ipv6-prefix": { kind: "ipv6-prefix", digest: "p48", prefixLength: 48 },
};

const STRICT = { count: 1, interval: 3_600 };
const LAX = { count: 50_000, interval: 10 };

function override(kind: SubjectKind, action: IdentityOverride["action"], limit = STRICT): IdentityOverride {
  return {
    kind: "identity",
    id: `${kind}-${action}`,
    subject: subjects[kind],
    action,
    reason: "scope",
    createdAt: NOW,
    createdBy: "admin",
    expiresAt: NOW + 60_000,
    ...(action === "limit" && { limits: { us: limit } }),
  };
}

/** The rules among 12, 13 and 29 where the override changes what happens. */
function reached(o: IdentityOverride): number[] {
  const compiled = compileOverrides({ version: 1, overrides: [o] });
  return [KEY_RULE, USER_RULE, IP_RULE].filter((id) => {
    const effective = resolve(compiled, publishedRow(id), "us", digests, NOW);
    return effective.treatment !== "count" || effective.limitBy === o;
  });
}

describe("an identity override applies only on rules that count its identity", () => {
  it.each([
    ["api-key", "block", [KEY_RULE]],
    ["api-key", "exempt", [KEY_RULE]],
    ["api-key", "limit", [KEY_RULE]],
    ["user-ip", "block", [USER_RULE]],
    ["user-ip", "exempt", [USER_RULE]],
    ["user-ip", "limit", [USER_RULE]],
    ["user-id", "block", [USER_RULE]],
    // Anyone can send any x-user-id: a user id alone never exempts (a stored one is ignored).
    ["user-id", "exempt", []],
    ["user-id", "limit", [USER_RULE]],
    // An address is set by Cloudflare's edge: its block holds everywhere, so no x-api-key walks around it.
    ["ip", "block", [KEY_RULE, USER_RULE, IP_RULE]],
    ["ip", "exempt", [USER_RULE, IP_RULE]],
    ["ip", "limit", [USER_RULE, IP_RULE]],
    ["ipv6-prefix", "block", [KEY_RULE, USER_RULE, IP_RULE]],
    ["ipv6-prefix", "exempt", [USER_RULE, IP_RULE]],
    ["ipv6-prefix", "limit", [USER_RULE, IP_RULE]],
  ] as const)("%s %s reaches rules %j", (kind, action, rules) => {
    expect(reached(override(kind, action))).toEqual(rules);
  });

  it("an x-user-id alone lowers a user rule's limit, never raises it (a raise by the user at an IP does)", () => {
    expect(reached(override("user-id", "limit", LAX))).toEqual([]);
    expect(reached(override("user-id", "limit", { count: 300, interval: 10 }))).toEqual([USER_RULE]);
    expect(reached(override("user-id", "limit", { count: 301, interval: 10 }))).toEqual([]);
    expect(reached(override("user-id", "limit", { count: 300, interval: 9 }))).toEqual([]);
    expect(reached(override("user-ip", "limit", LAX))).toEqual([USER_RULE]);
  });

  it("a user id sent by someone else meets the user's user-ip override only from the user's address", () => {
    // The user-ip digest is of (user, client key): another address gives another digest.
    const o = override("user-ip", "exempt");
    const compiled = compileOverrides({ version: 1, overrides: [o] });
    const elsewhere: RequestDigests = { ...digests, "user-ip": "same-user-other-ip" };
    expect(resolve(compiled, publishedRow(USER_RULE), "us", elsewhere, NOW).treatment).toBe("count");
    expect(resolve(compiled, publishedRow(USER_RULE), "us", digests, NOW).treatment).toBe("exempt");
  });
});

describe("the counter a limit override is counted on (countedDigest)", () => {
  const own: Record<number, string> = { [KEY_RULE]: "own-key", [USER_RULE]: "own-user-ip", [IP_RULE]: "own-ip" };
  const counted = (o: IdentityOverride, rule: number) => {
    const effective = resolve(compileOverrides({ version: 1, overrides: [o] }), publishedRow(rule), "us", digests, NOW);
    return countedDigest(effective.treatment === "count" ? effective.limitBy : undefined, publishedRow(rule).identity, own[rule]!);
  };
  // The subject's digest where an address or prefix limit applies: one counter for the whole
  // address (or prefix), whatever user id or address inside the prefix each request carries.
  it.each([
    ["api-key", ["own-key", "own-user-ip", "own-ip"]],
    ["user-ip", ["own-key", "own-user-ip", "own-ip"]],
    ["user-id", ["own-key", "own-user-ip", "own-ip"]],
    ["ip", ["own-key", "ip", "ip"]],
    ["ipv6-prefix", ["own-key", "p48", "p48"]],
  ] as const)("a %s limit counts rules 12, 13, 29 on %j", (kind, expected) => {
    expect([KEY_RULE, USER_RULE, IP_RULE].map((rule) => counted(override(kind, "limit"), rule))).toEqual(expected);
  });

  it("a rule override, an exemption or a block never moves the counter", () => {
    expect(countedDigest(undefined, "user-ip", "own")).toBe("own");
    expect(countedDigest(override("ip", "block"), "user-ip", "own")).toBe("own");
    expect(countedDigest(override("ip", "exempt"), "ip", "own")).toBe("own");
    expect(
      countedDigest({ kind: "rule", id: "r", rule: USER_RULE, limits: { us: STRICT }, reason: "x", createdAt: NOW, createdBy: "admin" }, "user-ip", "own"),
    ).toBe("own");
  });
});
