import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { hostedApiClassifier, hostedApiTable } from "../../../../src/core/rules/hosted-api.ts";
import { explainRequest } from "../../../../src/core/rules/explain.ts";
import type { RequestFacts } from "../../../../src/core/rules/request-facts.ts";

const UUID = "3f2c4e6a-1b2d-4c5e-8f90-a1b2c3d4e5f6";
const KEY = { apiKey: "k-123" };
const USER = { userId: "u-9" };
const ip = "203.0.113.7";

function ruleFor(method: string, path: string, headers: { apiKey?: string; userId?: string } = {}): number {
  return hostedApiClassifier.classify({ method, path, clientIp: ip, ...headers }).rule.id;
}

describe("classify: the published table", () => {
  // [method, path, headers, expected row]
  const cases: Array<[string, string, object, number]> = [
    ["OPTIONS", "/anything/at/all", KEY, 1],
    ["GET", "/info", {}, 1],
    ["POST", "/a/b/v1/metadata/submit", KEY, 1],
    ["POST", "/v1/metadata/submit", {}, 1],
    ["GET", "/auth", KEY, 2],
    ["POST", "/auth/login", USER, 3],
    ["GET", "/auth", {}, 29], // no identity header: only the catch-all applies
    ["GET", "/v1/beacon/verify", {}, 4],
    ["GET", "/repos/owner/repo", KEY, 5],
    ["GET", "/repos", USER, 6],
    ["GET", "/repository", KEY, 25], // segment prefix: /repos does not match /repository
    ["POST", "/runs/batch", KEY, 7],
    ["POST", "/otel/v1/traces", KEY, 8],
    ["POST", "/sessions/1/charts", KEY, 9],
    ["POST", "/charts", USER, 10],
    ["POST", "/chartsx", KEY, 25], // contains is segment-aligned
    ["GET", "/charts", KEY, 25], // charts rows are POST only
    ["POST", "/runs/multipart", KEY, 11],
    ["POST", "/runs/query", KEY, 12],
    ["POST", "/runs/query", USER, 13],
    ["POST", "/runs/query", { ...KEY, ...USER }, 12], // both headers: the key row comes first
    ["POST", "/generate/prompt", KEY, 14],
    ["GET", "/generate", USER, 15],
    ["GET", "/commits/owner/repo", KEY, 16],
    ["POST", "/commits/owner/repo", USER, 17],
    ["DELETE", "/sessions/abc", KEY, 18],
    ["DELETE", "/sessions", USER, 19],
    ["GET", "/sessions", KEY, 25], // only DELETE counts as deletion
    ["POST", "/workflows/x/trigger", KEY, 18],
    ["POST", "/runs", KEY, 20],
    ["PATCH", "/runs/abc", KEY, 21],
    ["PATCH", "/threads/t/runs/r", KEY, 21],
    ["POST", "/feedback", KEY, 22],
    ["GET", `/runs/${UUID}`, KEY, 23],
    ["HEAD", `/runs/${UUID}`, KEY, 23], // HEAD is served by GET handlers
    ["GET", `/api/v1/runs/${UUID}`, KEY, 23],
    ["GET", `/runs/${UUID.toUpperCase()}`, KEY, 23],
    // Every spelling pydantic's UUID accepts (uuid.ts), under either root.
    ["GET", `/runs/${UUID.replaceAll("-", "")}`, KEY, 23],
    ["GET", `/runs/{${UUID}}`, KEY, 23],
    ["GET", `/runs/urn:uuid:${UUID}`, KEY, 23],
    ["GET", `/api/v1/runs/{${UUID.toUpperCase()}}`, KEY, 23],
    ["GET", `/runs/{${UUID.replaceAll("-", "")}}`, KEY, 25], // braces only around the hyphenated form
    ["GET", `/runs/URN:UUID:${UUID}`, KEY, 25], // the prefix is lower case only
    // The /api/v1 root is an alias of /: every anchored row counts under it.
    ["POST", "/api/v1/runs/query", KEY, 12],
    ["GET", "/api/v1/runs/stats", KEY, 28],
    ["GET", "/api/v1/repos/o/r", USER, 6],
    ["GET", "/api/v1/info", {}, 1],
    ["GET", "/api/v1", KEY, 25],
    ["POST", "/api/v2/runs/query", KEY, 25], // only the declared alias
    ["GET", "/runs/not-a-uuid", KEY, 25],
    ["GET", `/runs/${UUID}/children`, KEY, 25],
    ["GET", "/datasets/d/examples", KEY, 24],
    ["GET", "/anything", KEY, 25],
    ["GET", "/anything", USER, 26],
    ["GET", "/public/download/x", KEY, 27], // specific rows outrank the defaults
    ["GET", "/runs/stats", KEY, 28], // not 25
    ["POST", "/runs/stats", KEY, 28],
    ["GET", "/runs/stats", USER, 26],
    ["GET", "/", {}, 29],
    ["GET", "/anything", { apiKey: "" }, 29], // empty header = absent
    ["patch", "/runs/x", KEY, 21], // methods compare case-insensitively
  ];
  it.each(cases)("%s %s %o -> row %i", (method, path, headers, expected) => {
    expect(ruleFor(method, path, headers)).toBe(expected);
  });

  it("keys user rows by user id and client IP together", () => {
    const c = hostedApiClassifier.classify({ method: "POST", path: "/runs/query", userId: "u", clientIp: ip });
    expect(c.identity).toEqual({ kind: "user-ip", userId: "u", ip });
  });

  it("says under which root an anchored pattern matched", () => {
    expect(hostedApiClassifier.classify({ method: "POST", path: "/api/v1/runs/query", apiKey: "k", clientIp: ip }).root).toBe("/api/v1");
    expect(hostedApiClassifier.classify({ method: "POST", path: "/runs/query", apiKey: "k", clientIp: ip }).root).toBe("/");
  });

  it("returns the matcher that selected the rule", () => {
    const c = hostedApiClassifier.classify({ method: "POST", path: "/x/trigger", apiKey: "k", clientIp: ip });
    expect(c.matcher.path).toEqual({ kind: "suffix", pattern: "/trigger" });
  });
});

describe("classify agrees with the reference evaluation (explainRequest)", () => {
  // Segments drawn from every pattern in the table plus noise, so random paths hit every row.
  const vocabulary = [...new Set(hostedApiTable.rules.flatMap((r) => r.matchers.flatMap((m) => (m.path ? m.path.pattern.slice(1).split("/") : []))))].filter(
    (s) => s !== "{uuid}",
  );
  // A UUID in one of the spellings pydantic accepts, or in one it refuses.
  const uuidSpelling = fc.tuple(fc.uuid(), fc.constantFrom("hyphenated", "upper", "simple", "braced", "urn", "braced-simple", "URN")).map(([u, form]) => {
    const simple = u.replaceAll("-", "");
    return { hyphenated: u, upper: u.toUpperCase(), simple, braced: `{${u}}`, urn: `urn:uuid:${u}`, "braced-simple": `{${simple}}`, URN: `URN:UUID:${u}` }[
      form
    ];
  });
  const segment = fc.oneof(fc.constantFrom(...vocabulary), uuidSpelling, fc.constantFrom("x", "api", "v1", "stats", "reposx", "Runs"));
  // Paths built around a published pattern (with noise before or after it) hit every row often.
  const patterns = hostedApiTable.rules.flatMap((r) => r.matchers.flatMap((m) => (m.path ? [m.path.pattern] : [])));
  const aroundPattern = fc
    .tuple(
      fc.oneof(fc.array(segment, { maxLength: 2 }), fc.constant(["api", "v1"])),
      fc.constantFrom(...patterns),
      uuidSpelling,
      fc.array(segment, { maxLength: 2 }),
    )
    .map(([before, pattern, uuid, after]) => [...before, ...pattern.slice(1).replace("{uuid}", uuid).split("/"), ...after]);
  const facts: fc.Arbitrary<RequestFacts> = fc.record({
    method: fc.constantFrom("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "get"),
    path: fc.oneof(fc.array(segment, { maxLength: 6 }), aroundPattern).map((s) => "/" + s.join("/")),
    apiKey: fc.option(fc.constantFrom("", "key-a"), { nil: undefined }),
    userId: fc.option(fc.constantFrom("", "user-b"), { nil: undefined }),
    clientIp: fc.constant(ip),
  });

  it("selects the same rule, matcher and identity for random requests", () => {
    fc.assert(
      fc.property(facts, (f) => {
        const fast = hostedApiClassifier.classify(f);
        const slow = explainRequest(hostedApiTable, f).classification;
        expect(fast.rule.id).toBe(slow.rule.id);
        expect(fast.matcher).toBe(slow.matcher);
        expect(fast.root).toBe(slow.root);
        expect(fast.identity).toEqual(slow.identity);
      }),
      { numRuns: 5000 },
    );
  });

  it("draws requests that reach every row (so the agreement above covers them all)", () => {
    const seen = new Set<number>();
    // Fixed seed: this checks the generator's coverage, not the classifier, so it must not flake.
    for (const f of fc.sample(facts, { numRuns: 20000, seed: 20261121 })) seen.add(hostedApiClassifier.classify(f).rule.id);
    expect([...seen].sort((a, b) => a - b)).toEqual(hostedApiTable.rules.map((r) => r.id));
  });
});

describe("explainRequest", () => {
  it("says why each outranking rule was passed over", () => {
    const { readings, classification } = explainRequest(hostedApiTable, {
      method: "POST",
      path: "/runs/query",
      userId: "u",
      clientIp: ip,
    });
    expect(classification.rule.id).toBe(13);
    const byId = new Map(readings.map((v) => [v.rule.id, v.outcome]));
    expect(byId.get(12)).toBe("no-identity");
    expect(byId.get(13)).toBe("selected");
    expect(byId.get(26)).toBe("outranked");
    expect(byId.get(29)).toBe("outranked");
    expect(byId.get(5)).toBe("no-match");
  });
});
