/*
 * UUIDs as the upstream reads them.
 *
 * The hosted API's path parameters typed `UUID` are validated by pydantic, which calls the Rust
 * `uuid` crate's `Uuid::parse_str`. That accepts four spellings, hex digits in either case:
 *   simple      67e5504410b1426f9247bb680e5fe0c8                    (32 characters)
 *   hyphenated  67e55044-10b1-426f-9247-bb680e5fe0c8                (36)
 *   braced      {67e55044-10b1-426f-9247-bb680e5fe0c8}              (38, hyphenated inside)
 *   urn         urn:uuid:67e55044-10b1-426f-9247-bb680e5fe0c8       (45, lower-case prefix only)
 * Every one names the same run, so a `{uuid}` template must match every one, or a client could
 * escape row 23 by spelling. Nothing else is accepted (no `{simple}`, no `URN:UUID:`), exactly as
 * the crate refuses them.
 */

const HYPHENS = [8, 13, 18, 23];

/** True for the 32 hex digits of `s[from, from + 32)`, skipping the hyphen positions of a hyphenated UUID. */
function hexDigits(s: string, from: number, hyphenated: boolean): boolean {
  const length = hyphenated ? 36 : 32;
  for (let i = 0; i < length; i++) {
    const c = s.charCodeAt(from + i);
    if (hyphenated && HYPHENS.includes(i)) {
      if (c !== 0x2d) return false;
      continue;
    }
    const lower = c | 0x20;
    if (!((c >= 0x30 && c <= 0x39) || (lower >= 0x61 && lower <= 0x66))) return false;
  }
  return true;
}

/**
 * The canonical (lower-case, hyphenated) form of `segment` when pydantic's UUID type accepts it,
 * otherwise undefined.
 *
 * @example
 * canonicalUuid("{67E55044-10B1-426F-9247-BB680E5FE0C8}") // "67e55044-10b1-426f-9247-bb680e5fe0c8"
 */
export function canonicalUuid(segment: string): string | undefined {
  let start: number;
  let hyphenated = true;
  switch (segment.length) {
    case 32:
      start = 0;
      hyphenated = false;
      break;
    case 36:
      start = 0;
      break;
    case 38:
      if (segment[0] !== "{" || segment[37] !== "}") return undefined;
      start = 1;
      break;
    case 45:
      if (!segment.startsWith("urn:uuid:")) return undefined;
      start = 9;
      break;
    default:
      return undefined;
  }
  if (!hexDigits(segment, start, hyphenated)) return undefined;
  const hex = segment.slice(start, start + (hyphenated ? 36 : 32)).toLowerCase();
  if (hyphenated) return hex;
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
