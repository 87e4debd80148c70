/*
 * Canonical request paths.
 *
 * Rate-limit rules are matched against a request's path. The upstream (Starlette) percent-decodes
 * the whole path exactly once, `%2F` included, before routing. If we matched on the raw wire
 * spelling, `/runs%2Fquery` could slip past a `/runs/query` rule and still reach that route
 * upstream under a laxer limit. So we do what the upstream does (a single decode, then split on
 * `/`), canonicalise the segments, and match rules on that decoded path. The request itself is
 * forwarded as sent: a spelling the upstream would not read as this canonical path (an empty or
 * dot segment, an encoded slash where a reader keeps it) is refused (path-spelling.ts).
 * `upstreamPath`, a canonical re-encoding, is what routing keeps of a path below a mount and the
 * spelling a refusal tells the client to send instead.
 *
 * Decoding exactly once matters in both directions: `%252F` is the three characters `%2F` to the
 * upstream, never a `/`, and it is re-encoded as `%252F` so a single decode gives them back.
 */

/** Result of {@link normalizePath}: the canonical path, or why the raw path was rejected. */
export type NormalizedPath =
  | {
      ok: true;
      /** Decoded canonical path used for rule matching: starts with `/`, no empty/`.`/`..` segments, no trailing slash (root is `/`). */
      path: string;
      /** `path` with each segment percent-encoded (RFC 3986 pchar kept): its canonical spelling, which a single decode reads as `path`. */
      upstreamPath: string;
    }
  | { ok: false; detail: string };

const SLASH = 0x2f;
const DOT = 0x2e;
const PERCENT = 0x25;

/**
 * PCHAR[c] === 1 for ASCII characters that RFC 3986 allows literally in a
 * path segment (unreserved, sub-delims, `:` and `@`). `%` is deliberately
 * excluded: in a canonical upstream path it only ever starts an escape we
 * wrote ourselves.
 */
const PCHAR = (() => {
  const table = new Uint8Array(128);
  const allowed = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~!$&'()*+,;=:@";
  for (let i = 0; i < allowed.length; i++) table[allowed.charCodeAt(i)] = 1;
  return table;
})();

/** Hex digit value of a char code, or -1. */
function hexValue(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  const lower = c | 0x20;
  if (lower >= 0x61 && lower <= 0x66) return lower - 0x61 + 10;
  return -1;
}

/**
 * True when `raw` is already canonical and contains only literal pchar
 * characters, so it needs neither decoding nor re-encoding. This is the
 * common case (`/v1/runs/abc`), handled with one pass and no allocation.
 */
function isAlreadyCanonical(raw: string): boolean {
  const n = raw.length;
  if (n === 0 || raw.charCodeAt(0) !== SLASH) return false;
  if (n === 1) return true;
  let segStart = 1;
  // i === n acts as a virtual closing slash so the last segment is checked too.
  for (let i = 1; i <= n; i++) {
    const c = i < n ? raw.charCodeAt(i) : SLASH;
    if (c === SLASH) {
      const len = i - segStart;
      if (len === 0) return false; // `//` or trailing slash
      if (raw.charCodeAt(segStart) === DOT && (len === 1 || (len === 2 && raw.charCodeAt(segStart + 1) === DOT))) {
        return false; // `.` or `..`
      }
      segStart = i + 1;
    } else if (c >= 128 || PCHAR[c] !== 1) {
      return false;
    }
  }
  return true;
}

/** Quote a short attacker-supplied snippet for an error detail without emitting raw control characters. */
function quote(s: string): string {
  return JSON.stringify(s);
}

/**
 * Checks escape syntax and returns an error detail for the first malformed
 * escape, or null when every `%` is followed by two hex digits.
 */
function findBadEscape(raw: string): string | null {
  let i = raw.indexOf("%");
  while (i !== -1) {
    if (i + 2 >= raw.length) {
      return `incomplete percent-escape ${quote(raw.slice(i))} at offset ${i} (expected % followed by two hex digits)`;
    }
    if (hexValue(raw.charCodeAt(i + 1)) < 0 || hexValue(raw.charCodeAt(i + 2)) < 0) {
      return `invalid percent-escape ${quote(raw.slice(i, i + 3))} at offset ${i} (expected % followed by two hex digits)`;
    }
    i = raw.indexOf("%", i + 3);
  }
  return null;
}

/**
 * Called only after decodeURIComponent rejected the whole path: finds the
 * run of consecutive escapes whose bytes are not valid UTF-8, to say where.
 * A multi-byte UTF-8 sequence cannot be split by a literal character, so
 * decoding each maximal run separately is equivalent to decoding the whole.
 */
function describeBadUtf8(raw: string): string {
  let i = raw.indexOf("%");
  while (i !== -1) {
    let end = i;
    while (end < raw.length && raw.charCodeAt(end) === PERCENT) end += 3;
    const run = raw.slice(i, end);
    try {
      decodeURIComponent(run);
    } catch {
      // Cap the echo: the run is client-controlled and may be arbitrarily long.
      const shown = run.length > 36 ? `${run.slice(0, 36)}...` : run;
      return `percent-encoded bytes ${quote(shown)} at offset ${i} are not valid UTF-8`;
    }
    i = raw.indexOf("%", end);
  }
  // Unreachable when escapes are syntactically valid; kept as a safe fallback.
  return "percent-encoded bytes are not valid UTF-8";
}

/** Escapes that encodeURIComponent emits for pchar characters it does not consider unreserved. */
const OVER_ENCODED_PCHAR = /%(?:24|26|2B|2C|3B|3D|3A|40)/g;

/** Percent-encode one decoded segment, keeping pchar characters literal. */
function encodeSegment(segment: string): string {
  let plain = true;
  for (let i = 0; i < segment.length; i++) {
    const c = segment.charCodeAt(i);
    if (c >= 128 || PCHAR[c] !== 1) {
      plain = false;
      break;
    }
  }
  if (plain) return segment;
  // encodeURIComponent gives UTF-8 with uppercase hex and escapes a superset
  // of what we must escape; undo it for `$&+,;=:@`, which are pchar. Every
  // `%` in its output starts an escape it wrote, so the regex cannot match
  // across an escape boundary (a literal `%24` is output as `%2524`).
  return encodeURIComponent(segment).replace(OVER_ENCODED_PCHAR, (m) => decodeURIComponent(m));
}

/**
 * Canonicalise a request path for rule matching.
 *
 * Percent-escapes are decoded exactly once (like the upstream), the result is
 * split on `/`, empty segments are dropped and `.`/`..` resolved (`..` never
 * climbs above the root). `upstreamPath` re-encodes that path so that a single
 * decode of it yields `path`; `normalizePath(upstreamPath)` returns the same
 * result. Malformed escapes, invalid UTF-8 and control characters
 * (U+0000-U+001F, U+007F) are rejected.
 *
 * @param rawPath the path exactly as received on the wire (URL.pathname, still percent-encoded, no query).
 */
export function normalizePath(rawPath: string): NormalizedPath {
  if (isAlreadyCanonical(rawPath)) {
    return { ok: true, path: rawPath, upstreamPath: rawPath };
  }

  let decoded = rawPath;
  if (rawPath.includes("%")) {
    const badEscape = findBadEscape(rawPath);
    if (badEscape !== null) return { ok: false, detail: badEscape };
    try {
      // One decode of the whole string, exactly like the upstream; it rejects
      // overlong forms (`%C0%AF`), encoded surrogates and truncated sequences.
      decoded = decodeURIComponent(rawPath);
    } catch {
      return { ok: false, detail: describeBadUtf8(rawPath) };
    }
  }
  if (!decoded.isWellFormed()) {
    // Only reachable through literal lone surrogates in the input string.
    return { ok: false, detail: "path contains an unpaired UTF-16 surrogate" };
  }

  const segments: string[] = [];
  let segStart = 0;
  const n = decoded.length;
  for (let i = 0; i <= n; i++) {
    const c = i < n ? decoded.charCodeAt(i) : SLASH;
    if (c === SLASH) {
      if (i > segStart) {
        const segment = decoded.slice(segStart, i);
        if (segment === "..") segments.pop();
        else if (segment !== ".") segments.push(segment);
      }
      segStart = i + 1;
    } else if (c < 0x20 || c === 0x7f) {
      const code = c.toString(16).toUpperCase().padStart(4, "0");
      return { ok: false, detail: `path contains control character U+${code}` };
    }
  }

  if (segments.length === 0) return { ok: true, path: "/", upstreamPath: "/" };
  let path = "";
  let upstreamPath = "";
  for (const segment of segments) {
    path += "/" + segment;
    upstreamPath += "/" + encodeSegment(segment);
  }
  return { ok: true, path, upstreamPath };
}
