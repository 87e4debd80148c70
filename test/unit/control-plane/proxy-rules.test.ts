import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  checkHeaderName,
  checkHeaderValue,
  checkHostPattern,
  checkNoProxyEntry,
  checkPathPattern,
  headerVariables,
  ProxyConfig,
} from "../../../emulators/control-plane/templates/proxy-rules.ts";

describe("match_paths: absolute paths that may end in a wildcard", () => {
  it.each(["/", "/*", "/api/*", "/api/v1/users", "/repos*", "/a%20b/*", "/v1/:id"])("accepts %s", (pattern) => {
    expect(checkPathPattern(pattern)).toBeUndefined();
  });

  it.each([
    ["*", /must start with \//],
    ["api/*", /must start with \//],
    ["", /must start with \//],
    ["/a/*/b", /not at the end/],
    ["/*/", /not at the end/],
    ["/**", /not at the end/],
    ["/a*b", /not at the end/],
    ["/a b", /whitespace/],
    ["/a?x=1", /query/],
    ["/a#top", /fragment/],
  ])("refuses %j", (pattern, reason) => {
    expect(checkPathPattern(pattern)).toMatch(reason);
  });

  it("accepts any absolute path with an optional trailing *, and refuses a * anywhere before the end", () => {
    const segment = fc.stringMatching(/^[A-Za-z0-9._~%:-]{0,8}$/);
    const path = fc.array(segment, { minLength: 1, maxLength: 5 }).map((s) => `/${s.join("/")}`);
    fc.assert(
      fc.property(path, fc.boolean(), (p, wildcard) => {
        expect(checkPathPattern(wildcard ? `${p}*` : p)).toBeUndefined();
      }),
    );
    fc.assert(
      fc.property(path, fc.nat(), (p, at) => {
        const i = at % p.length;
        // a * at position i, with at least one character after it
        expect(checkPathPattern(`${p.slice(0, i + 1)}*${p.slice(i + 1)}x`)).toMatch(/not at the end/);
      }),
    );
  });
});

describe("inject_headers: token names, values with ${NAME} references", () => {
  it.each(["Authorization", "X-Api-Key", "x-custom_header.v2", "!#$%&'*+-.^_`|~"])("accepts the header name %s", (name) => {
    expect(checkHeaderName(name)).toBeUndefined();
  });

  it.each(["", "X Api", "X-Api:", "Authorization\r\n", "Ä", "(x)", "a/b"])("refuses the header name %j", (name) => {
    expect(checkHeaderName(name)).toBeDefined();
  });

  it.each([
    ["Bearer ${API_TOKEN}", ["API_TOKEN"]],
    ["${A}:${b_2}", ["A", "b_2"]],
    ["${_private}", ["_private"]],
    ["costs $5", []],
    ["$API_TOKEN", []],
    ["{not a ref}", []],
    ["$ {spaced}", []],
    ["", []],
    ["tab\tinside", []],
  ])("accepts the value %j, referencing %j", (value, names) => {
    expect(checkHeaderValue(value)).toBeUndefined();
    expect(headerVariables(value)).toEqual(names);
  });

  it.each([
    ["Bearer ${API_TOKEN", /unterminated/],
    ["${", /unterminated/],
    ["ok ${A} then ${B", /unterminated variable reference at position 13/],
    ["${}", /not a valid variable reference/],
    ["${1ABC}", /not a valid variable reference/],
    ["${API-TOKEN}", /not a valid variable reference/],
    ["${API TOKEN}", /not a valid variable reference/],
    ["${A${B}}", /not a valid variable reference/],
    ["line\r\nX-Injected: 1", /control characters \(found U\+000D\)/],
    ["nul\u0000", /control characters/],
  ])("refuses the value %j", (value, reason) => {
    expect(checkHeaderValue(value)).toMatch(reason);
  });

  it("accepts any literal text around well-formed references", () => {
    const literal = fc.string({ unit: fc.constantFrom(..."abc XYZ-_:/=.$}{1"), maxLength: 10 }).filter((s) => !s.includes("${") && !s.endsWith("$"));
    const name = fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,10}$/);
    fc.assert(
      fc.property(fc.array(fc.tuple(literal, name), { maxLength: 4 }), literal, (parts, tail) => {
        const value = parts.map(([text, n]) => `${text}\${${n}}`).join("") + tail;
        expect(checkHeaderValue(value)).toBeUndefined();
        expect(headerVariables(value)).toEqual(parts.map(([, n]) => n));
        expect(checkHeaderValue(`${value}\${${parts[0]?.[1] ?? "X"}`)).toMatch(/unterminated/);
      }),
    );
  });
});

describe("match_hosts and no_proxy", () => {
  it.each(["api.github.com", "*.huggingface.co", "localhost", "localhost:8080", "10.0.0.1", "[::1]:443", "xn--bcher-kva.example"])(
    "accepts the host %s",
    (host) => {
      expect(checkHostPattern(host)).toBeUndefined();
    },
  );

  it.each([
    ["https://api.github.com", /is a URL/],
    ["api.github.com/repos", /contains a path/],
    ["*", /wildcard/],
    ["api.*.com", /wildcard/],
    ["**.example.com", /wildcard/],
    ["-bad.example.com", /not a valid host/],
    ["exa mple.com", /not a valid host/],
    ["", /not a valid host/],
    ["example.com:99999", /port above 65535/],
  ])("refuses the host %j", (host, reason) => {
    expect(checkHostPattern(host)).toMatch(reason);
  });

  it.each(["*", "localhost", ".svc.cluster.local", "*.internal", "10.0.0.0/8", "fd00::/8", "127.0.0.1", "db:5432"])(
    "accepts the no_proxy entry %s",
    (entry) => {
      expect(checkNoProxyEntry(entry)).toBeUndefined();
    },
  );

  it.each([
    ["localhost,127.0.0.1", /comma/],
    ["a b", /whitespace/],
    ["", /not a host/],
    ["in*ternal", /wildcard/],
    ["http://proxy", /not a host/],
  ])("refuses the no_proxy entry %j", (entry, reason) => {
    expect(checkNoProxyEntry(entry)).toMatch(reason);
  });
});

describe("ProxyConfig schema", () => {
  it("defaults everything but a rule's name and hosts", () => {
    expect(ProxyConfig.parse(undefined)).toEqual({ rules: [], no_proxy: [] });
    expect(ProxyConfig.parse({ rules: [{ name: "r", match_hosts: ["a.com"] }] })).toEqual({
      rules: [{ name: "r", match_hosts: ["a.com"], match_paths: ["/*"], inject_headers: {}, enabled: true }],
      no_proxy: [],
    });
  });

  it("points each failure at its place", () => {
    const result = ProxyConfig.safeParse({
      rules: [
        { name: "a", match_hosts: ["a.com"], match_paths: ["/ok/*", "/bad/*/x"], inject_headers: { "X-Key": "${KEY", "bad name": "v" } },
        { name: "a", match_hosts: [], enabled: "yes" },
      ],
      no_proxy: ["a,b"],
      extra: true,
    });
    expect(result.success).toBe(false);
    const places = result.error!.issues.map((issue) => issue.path.join("."));
    expect(places.sort()).toEqual(
      [
        "rules.0.match_paths.1",
        "rules.0.inject_headers.X-Key",
        "rules.0.inject_headers.bad name.[key]",
        "rules.1.match_hosts",
        "rules.1.enabled",
        "no_proxy.0",
        "",
      ].sort(),
    );
  });

  it("refuses a rule name used twice (checked once every rule is otherwise valid)", () => {
    const rule = { name: "same", match_hosts: ["a.com"] };
    const result = ProxyConfig.safeParse({ rules: [rule, { ...rule }] });
    expect(result.error?.issues.map((i) => [i.path.join("."), i.message])).toEqual([
      ["rules.1.name", "Value error, rule name 'same' is already used by item 0"],
    ]);
  });

  it("treats header names case-insensitively", () => {
    const result = ProxyConfig.safeParse({ rules: [{ name: "r", match_hosts: ["a.com"], inject_headers: { Authorization: "a", authorization: "b" } }] });
    expect(result.error?.issues.map((i) => [i.path.join("."), i.message])).toEqual([
      ["rules.0.inject_headers.authorization.[key]", "Value error, header 'authorization' repeats 'Authorization' (header names are case-insensitive)"],
    ]);
  });
});
