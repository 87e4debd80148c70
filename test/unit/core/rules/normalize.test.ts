import { describe, it, expect } from "vitest";
import fc from "fast-check";
import { normalizePath } from "../../../../src/core/rules/normalize.ts";

/** Characters RFC 3986 allows literally in a path segment. */
const PCHAR = new Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~!$&'()*+,;=:@");

function ok(raw: string): { path: string; upstreamPath: string } {
  const r = normalizePath(raw);
  if (!r.ok) throw new Error(`expected ${JSON.stringify(raw)} to normalize, got: ${r.detail}`);
  return { path: r.path, upstreamPath: r.upstreamPath };
}

/** Percent-encode every UTF-8 byte of `ch`, with the hex in the requested case. */
function pctEncode(ch: string, upper: boolean): string {
  const bytes = new TextEncoder().encode(ch);
  let out = "";
  for (const b of bytes) {
    const hex = b.toString(16).padStart(2, "0");
    out += "%" + (upper ? hex.toUpperCase() : hex.toLowerCase());
  }
  return out;
}

describe("normalizePath examples", () => {
  const cases: [raw: string, path: string, upstreamPath: string][] = [
    ["/runs/query", "/runs/query", "/runs/query"],
    ["//runs///query/", "/runs/query", "/runs/query"],
    ["/runs/./x/../query", "/runs/query", "/runs/query"],
    ["/runs%2Fquery", "/runs/query", "/runs/query"],
    ["/runs%2fquery", "/runs/query", "/runs/query"],
    ["/%72uns/query", "/runs/query", "/runs/query"],
    ["/a/%2e%2e/runs", "/runs", "/runs"],
    ["/a/%2E/runs", "/a/runs", "/a/runs"],
    ["/a%2F..%2Fruns", "/runs", "/runs"],
    ["/../../x", "/x", "/x"],
    ["/..", "/", "/"],
    ["/./", "/", "/"],
    ["/repos%252Fx", "/repos%2Fx", "/repos%252Fx"],
    ["/caf%C3%A9", "/café", "/caf%C3%A9"],
    ["/caf%c3%a9", "/café", "/caf%C3%A9"],
    ["/a b", "/a b", "/a%20b"],
    ["/a%20b", "/a b", "/a%20b"],
    ["/", "/", "/"],
    ["", "/", "/"],
    ["runs/query", "/runs/query", "/runs/query"],
    ["/Runs/QUERY", "/Runs/QUERY", "/Runs/QUERY"],
    ["/...", "/...", "/..."],
    ["/.x/..y/a.", "/.x/..y/a.", "/.x/..y/a."],
    // pchar sub-delims and `:@` stay literal, even when they arrived encoded.
    ["/a:b@c!$&'()*+,;=~", "/a:b@c!$&'()*+,;=~", "/a:b@c!$&'()*+,;=~"],
    ["/%24%26%2B%2C%3B%3D%3A%40", "/$&+,;=:@", "/$&+,;=:@"],
    // Everything else is encoded, including `%`, `?`, `#` and backslash.
    ["/a%3Fb%23c%25d%5Ce", "/a?b#c%d\\e", "/a%3Fb%23c%25d%5Ce"],
    ["/%E2%82%AC/%F0%9F%98%80", "/€/😀", "/%E2%82%AC/%F0%9F%98%80"],
    ["/%EF%BB%BFx", "/\uFEFFx", "/%EF%BB%BFx"],
  ];
  for (const [raw, path, upstreamPath] of cases) {
    it(`${JSON.stringify(raw)} -> ${JSON.stringify(path)}`, () => {
      expect(normalizePath(raw)).toEqual({ ok: true, path, upstreamPath });
    });
  }

  const malformed: [raw: string, mention: RegExp][] = [
    ["/a%zz", /percent-escape "%zz" at offset 2/],
    ["/a%4", /incomplete percent-escape "%4"/],
    ["/a%", /incomplete percent-escape "%"/],
    ["/a%4g/b", /invalid percent-escape "%4g"/],
    ["/a%C3%28", /"%C3%28" .*not valid UTF-8/],
    ["/ok/%FF", /"%FF" at offset 4 .*not valid UTF-8/],
    ["/x%C3", /"%C3" .*not valid UTF-8/],
    // Overlong `/` and `.`: classic traversal spellings.
    ["/a%C0%AF..", /"%C0%AF" .*not valid UTF-8/],
    ["/%C0%AE%C0%AE/x", /not valid UTF-8/],
    // UTF-8-encoded surrogate half.
    ["/%ED%A0%80", /not valid UTF-8/],
    ["/a%00b", /control character U\+0000/],
    ["/a%0Ab", /control character U\+000A/],
    ["/a%0d%0a", /control character U\+000D/],
    ["/a%1F", /control character U\+001F/],
    ["/a%7F", /control character U\+007F/],
    ["/a\tb", /control character U\+0009/],
    ["/a\uD800b", /surrogate/],
  ];
  for (const [raw, mention] of malformed) {
    it(`rejects ${JSON.stringify(raw)}`, () => {
      const r = normalizePath(raw);
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.detail).toMatch(mention);
    });
  }

  it("decodes exactly once: %252F stays the three characters %2F", () => {
    const r = ok("/runs%252Fquery");
    expect(r.path).toBe("/runs%2Fquery");
    expect(r.path.split("/")).toHaveLength(2);
    expect(ok(r.upstreamPath)).toEqual(r);
  });

  it("caps the echoed bytes of a long invalid run", () => {
    const r = normalizePath("/x" + "%FF".repeat(1000));
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.detail).toBe(`percent-encoded bytes "${"%FF".repeat(12)}..." at offset 2 are not valid UTF-8`);
  });

  it("does not let an encoded dot segment climb above the root", () => {
    expect(ok("/%2e%2e/%2E%2E/%2e%2E/etc")).toEqual({ path: "/etc", upstreamPath: "/etc" });
  });

  it("accepts U+0080..U+009F and other non-ASCII as ordinary characters", () => {
    expect(ok("/%C2%85")).toEqual({ path: "/\u0085", upstreamPath: "/%C2%85" });
  });
});

/** Raw paths mixing structure, escapes (good and bad), and arbitrary characters. */
const rawPathArb = fc
  .array(
    fc.oneof(
      fc.constantFrom(
        "/",
        "//",
        ".",
        "..",
        "./",
        "../",
        "%",
        "%2F",
        "%2f",
        "%2e",
        "%2E",
        "%25",
        "%252F",
        "%C3%A9",
        "%c3%a9",
        "%zz",
        "%4",
        "%C3",
        "%FF",
        "%00",
        "%20",
        "?",
        "#",
        " ",
        "\\",
        "é",
        "😀",
        "runs",
        "query",
      ),
      fc.string({ unit: "grapheme", maxLength: 4 }),
      fc.string({ unit: "binary", maxLength: 3 }),
    ),
    { maxLength: 12 },
  )
  .map((parts) => parts.join(""));

describe("normalizePath properties", () => {
  it("is idempotent: normalizing upstreamPath gives the same result", () => {
    fc.assert(
      fc.property(rawPathArb, (raw) => {
        const r = normalizePath(raw);
        if (!r.ok) return;
        expect(normalizePath(r.upstreamPath)).toEqual(r);
        expect(normalizePath(r.path.replaceAll("%", "%25"))).toEqual(r);
      }),
      { numRuns: 2000 },
    );
  });

  it("has canonical shape, and a single decode of upstreamPath yields path", () => {
    fc.assert(
      fc.property(rawPathArb, (raw) => {
        const r = normalizePath(raw);
        if (!r.ok) {
          expect(r.detail.length).toBeGreaterThan(0);
          return;
        }
        expect(r.path.startsWith("/")).toBe(true);
        expect(r.path).not.toContain("//");
        if (r.path !== "/") {
          expect(r.path.endsWith("/")).toBe(false);
          for (const seg of r.path.slice(1).split("/")) {
            expect(seg).not.toBe("");
            expect(seg).not.toBe(".");
            expect(seg).not.toBe("..");
            expect(seg).not.toMatch(/[\u0000-\u001f\u007f]/);
          }
        }
        // Starlette-style single decode of what we forward is what we matched.
        expect(decodeURIComponent(r.upstreamPath)).toBe(r.path);
        // upstreamPath holds only `/`, pchar and uppercase escapes.
        expect(r.upstreamPath).toMatch(/^(?:[A-Za-z0-9\-._~!$&'()*+,;=:@/]|%[0-9A-F]{2})*$/);
      }),
      { numRuns: 2000 },
    );
  });

  // A decoded segment: any well-formed, control-free text without `/` that is not `.`/`..`.
  const segmentArb = fc
    .string({
      unit: fc.oneof(
        fc.constantFrom("%", ".", "?", "#", " ", "\\", "é"),
        fc.constantFrom(...PCHAR),
        fc.string({ unit: "grapheme", minLength: 1, maxLength: 1 }),
      ),
      minLength: 1,
      maxLength: 6,
    })
    .filter((s) => s !== "." && s !== ".." && !s.includes("/") && !/[\u0000-\u001f\u007f]/.test(s));

  /** Spell a decoded segment on the wire, percent-encoding random characters with random hex case. */
  const spellArb = (segment: string) =>
    fc
      .array(fc.tuple(fc.boolean(), fc.boolean()), {
        minLength: [...segment].length,
        maxLength: [...segment].length,
      })
      .map((choices) =>
        [...segment]
          .map((ch, i) => {
            const [encode, upper] = choices[i]!;
            // Only pchar may appear literally; everything else must be escaped.
            return encode || !PCHAR.has(ch) ? pctEncode(ch, upper) : ch;
          })
          .join(""),
      );

  /** A separator that means a single `/`: `//`, `./`, `x/../`, `%2F`... */
  const separatorArb = fc
    .array(
      fc.oneof(
        fc.constantFrom("/", "./", "%2E/", "%2e%2F", "%2F", "%2f"),
        segmentArb.chain(spellArb).map((x) => `${x}/../`),
        segmentArb.chain(spellArb).map((x) => `${x}%2F%2E%2E%2F`),
      ),
      { maxLength: 3 },
    )
    .map((extra) => "/" + extra.join(""));

  it("treats every spelling of a segment list as the same path", () => {
    fc.assert(
      fc.property(
        fc
          .array(segmentArb, { maxLength: 5 })
          .chain((segments) =>
            fc.tuple(
              fc.constant(segments),
              fc.tuple(...segments.map((s) => fc.tuple(separatorArb, spellArb(s)))),
              fc.constantFrom("", "/", "//", "/.", "/./", "/x/..", "/%2E"),
            ),
          ),
        ([segments, spelled, trailing]) => {
          const expected = "/" + segments.join("/");
          // The canonical wire spelling: pchar literal, everything else escaped.
          const canonical = "/" + segments.map((s) => [...s].map((ch) => (PCHAR.has(ch) ? ch : pctEncode(ch, true))).join("")).join("/");
          const plain = ok(canonical);
          expect(plain).toEqual({ path: expected, upstreamPath: canonical });

          const noisy = spelled.map(([sep, seg]) => sep + seg).join("") + trailing;
          expect(ok(noisy)).toEqual(plain);
        },
      ),
      { numRuns: 1000 },
    );
  });
});
