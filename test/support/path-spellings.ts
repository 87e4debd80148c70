// Helpers both test pools use (Node and the Workers runtime): pure, nothing from node: or cloudflare:.
// Every spelling of a path that the canonicaliser (src/core/rules/normalize.ts) reads as that path,
// and the reserved paths (the admin API's under /_tollgate) to spell.
import fc from "fast-check";

const PCHAR = new Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~!$&'()*+,;=:@");

/** Percent-encodes `ch` (its UTF-8 bytes) with hex digits in the case asked. */
function pctEncode(ch: string, upper: boolean): string {
  let out = "";
  for (const byte of new TextEncoder().encode(ch)) {
    const hex = byte.toString(16).padStart(2, "0");
    out += "%" + (upper ? hex.toUpperCase() : hex);
  }
  return out;
}

/** A decoded segment on the wire: any of its characters percent-encoded, in either hex case; non-pchar always. */
export const segmentSpelling = (segment: string): fc.Arbitrary<string> =>
  fc
    .array(fc.tuple(fc.boolean(), fc.boolean()), { minLength: [...segment].length, maxLength: [...segment].length })
    .map((choices) => [...segment].map((ch, i) => (choices[i]![0] || !PCHAR.has(ch) ? pctEncode(ch, choices[i]![1]) : ch)).join(""));

/** What reads as one `/` before a segment: `//`, `/./`, `%2F`, `/x/../`, an encoded `..`... */
const separatorSpelling: fc.Arbitrary<string> = fc
  .array(
    fc.oneof(
      fc.constantFrom("/", "./", "%2E/", "%2e%2F", "%2F", "%2f", "x/../", "x%2F%2e%2e/"),
      fc
        .constantFrom("api", "v1", "x", "_tollgate")
        .chain(segmentSpelling)
        .map((s) => `${s}/../`),
      fc
        .constantFrom("runs", "agent-server")
        .chain(segmentSpelling)
        .map((s) => `${s}%2F%2E%2E%2F`),
    ),
    { maxLength: 3 },
  )
  .map((extra) => "/" + extra.join(""));

/**
 * Spellings of `/<segments joined by />` the canonicaliser reads as that path: each segment with
 * random escapes, each separator doubled, dotted or encoded, a leading detour (`/x/..`) and a
 * trailing `/`, `/.` or `/%2E`.
 */
export function pathSpelling(segments: readonly string[]): fc.Arbitrary<string> {
  return fc
    .tuple(
      fc.constantFrom("", "/x/..", "/a/b/../..", "/..", "/%2e%2e"),
      fc.tuple(...segments.map((segment) => fc.tuple(separatorSpelling, segmentSpelling(segment)))),
      fc.constantFrom("", "/", "//", "/.", "/./", "/%2E"),
    )
    .map(([lead, spelled, trailing]) => lead + spelled.map(([separator, segment]) => separator + segment).join("") + trailing);
}

/** The admin API's paths (src/admin/routes/), the prefix itself and any other path below it, as segments. */
export const reservedPathSegments: fc.Arbitrary<readonly string[]> = fc.oneof(
  fc.constantFrom(
    ["_tollgate"],
    ["_tollgate", "health"],
    ["_tollgate", "rules"],
    ["_tollgate", "explain"],
    ["_tollgate", "counters", "inspect"],
    ["_tollgate", "overrides"],
    ["_tollgate", "overrides", "some-id"],
    ["_tollgate", "audit"],
    ["_tollgate", "metrics"],
    ["_tollgate", "dashboard"],
    ["_tollgate", "dashboard", "data"],
  ),
  fc.array(fc.constantFrom("a", "ü", "x y", "%", "?", "#", ";"), { minLength: 1, maxLength: 3 }).map((rest) => ["_tollgate", ...rest]),
);

/** A reserved path and one of its spellings. */
export const reservedPathSpelling: fc.Arbitrary<{ path: string; spelled: string }> = reservedPathSegments.chain((segments) =>
  pathSpelling(segments).map((spelled) => ({ path: "/" + segments.join("/"), spelled })),
);
