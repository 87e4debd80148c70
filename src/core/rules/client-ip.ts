/*
 * Rate-limit key for a client address.
 *
 * IPv4 clients are keyed by their address. IPv6 clients are keyed by their
 * /64: a subscriber is normally delegated at least a /64 and can rotate
 * addresses inside it at will (privacy extensions do so automatically), so a
 * per-address key would hand one client an unbounded number of buckets.
 * IPv4-mapped IPv6 addresses are the same IPv4 client and get the IPv4 key.
 *
 * Every spelling of an address must yield the same key, so addresses are
 * parsed to numbers and re-formatted; the raw header text is never used.
 */

/**
 * Key shared by every request whose client address is absent or unparseable.
 * Sharing one bucket is the strict choice: a client cannot escape its limit
 * by sending garbage (on Cloudflare the header is always present anyway).
 */
export const UNKNOWN_CLIENT = "unknown";

/** Parse `a.b.c.d` (decimal octets 0..255, 1-3 digits each) to 4 octets, or null. */
function parseIPv4(s: string): number[] | null {
  const octets: number[] = [];
  let value = 0;
  let digits = 0;
  for (let i = 0; i <= s.length; i++) {
    const c = i < s.length ? s.charCodeAt(i) : 0x2e; // virtual trailing `.`
    if (c === 0x2e) {
      if (digits === 0 || value > 255) return null;
      octets.push(value);
      value = 0;
      digits = 0;
    } else if (c >= 0x30 && c <= 0x39) {
      // Always decimal, so `010` means 10, never octal 8 as inet_aton would read it.
      if (++digits > 3) return null;
      value = value * 10 + (c - 0x30);
    } else {
      return null;
    }
  }
  return octets.length === 4 ? octets : null;
}

/** Parse one 1-4 digit hex group, or return -1. */
function parseHexGroup(s: string): number {
  if (s.length === 0 || s.length > 4) return -1;
  let value = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    let d: number;
    if (c >= 0x30 && c <= 0x39) d = c - 0x30;
    else if ((c | 0x20) >= 0x61 && (c | 0x20) <= 0x66) d = (c | 0x20) - 0x61 + 10;
    else return -1;
    value = value * 16 + d;
  }
  return value;
}

/**
 * Parse colon-separated groups; when `allowIPv4Tail`, the last part may be a
 * dotted quad, which contributes two 16-bit groups. Returns null if invalid.
 */
function parseGroups(parts: string[], allowIPv4Tail: boolean): number[] | null {
  const groups: number[] = [];
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    if (allowIPv4Tail && i === parts.length - 1 && part.includes(".")) {
      const v4 = parseIPv4(part);
      if (v4 === null) return null;
      groups.push((v4[0]! << 8) | v4[1]!, (v4[2]! << 8) | v4[3]!);
    } else {
      const g = parseHexGroup(part);
      if (g < 0) return null;
      groups.push(g);
    }
  }
  return groups;
}

/** Parse an IPv6 address (no brackets, no zone) into eight 16-bit groups, or null. */
function parseIPv6(s: string): number[] | null {
  const gap = s.indexOf("::");
  if (gap === -1) {
    const groups = parseGroups(s.split(":"), true);
    return groups !== null && groups.length === 8 ? groups : null;
  }
  // At most one `::`; this also rejects `:::`.
  if (s.indexOf("::", gap + 1) !== -1) return null;
  const left = s.slice(0, gap);
  const right = s.slice(gap + 2);
  // An IPv4 tail is only allowed at the very end of the address.
  const head = left === "" ? [] : parseGroups(left.split(":"), false);
  const tail = right === "" ? [] : parseGroups(right.split(":"), true);
  if (head === null || tail === null) return null;
  // `::` stands for at least one zero group.
  const missing = 8 - head.length - tail.length;
  if (missing < 1) return null;
  return [...head, ...new Array<number>(missing).fill(0), ...tail];
}

/** Canonical key for a /64: RFC 5952 text of the prefix with the low 64 bits zeroed, plus `/64`. */
function formatPrefix64(groups: number[]): string {
  // The low four groups are zero, so the longest zero run (the one RFC 5952
  // compresses) is always the trailing one, extended back over any zero
  // groups at the end of the prefix. A run inside the prefix that does not
  // reach the end is at most three groups, shorter than the trailing four.
  let end = 4;
  while (end > 0 && groups[end - 1] === 0) end--;
  let text = "";
  for (let i = 0; i < end; i++) text += (i > 0 ? ":" : "") + groups[i]!.toString(16);
  return `${text}::/64`;
}

/**
 * Rate-limit key for a client address.
 *
 * - IPv4 `a.b.c.d` -> canonical dotted quad.
 * - IPv6 (any compression, case, embedded IPv4 tail, `%zone`, `[...]`) -> its /64, e.g. `2001:db8:1:2::/64`.
 * - IPv4-mapped IPv6 (`::ffff:a.b.c.d`) -> the IPv4 key, so one client has one bucket.
 * - Absent, empty or unparseable -> {@link UNKNOWN_CLIENT}.
 *
 * IPv4 keys contain no `:` and IPv6 keys always end in `/64`, so they never collide.
 *
 * @param header the CF-Connecting-IP value (set by Cloudflare's edge), or null when absent.
 */
export function clientIpKey(header: string | null | undefined): string {
  if (header == null) return UNKNOWN_CLIENT;
  let s = header.trim();
  if (s === "") return UNKNOWN_CLIENT;

  if (!s.includes(":")) {
    const v4 = parseIPv4(s);
    return v4 === null ? UNKNOWN_CLIENT : v4.join(".");
  }

  if (s.charCodeAt(0) === 0x5b /* [ */) {
    if (s.charCodeAt(s.length - 1) !== 0x5d /* ] */) return UNKNOWN_CLIENT;
    s = s.slice(1, -1);
  }
  const zone = s.indexOf("%");
  if (zone !== -1) {
    // The zone only names the interface on the receiving host; it is not
    // part of the address. An empty zone is malformed.
    if (zone === s.length - 1) return UNKNOWN_CLIENT;
    s = s.slice(0, zone);
  }

  const groups = parseIPv6(s);
  if (groups === null) return UNKNOWN_CLIENT;

  if (groups[0] === 0 && groups[1] === 0 && groups[2] === 0 && groups[3] === 0 && groups[4] === 0 && groups[5] === 0xffff) {
    const hi = groups[6]!;
    const lo = groups[7]!;
    return `${hi >> 8}.${hi & 0xff}.${lo >> 8}.${lo & 0xff}`;
  }
  return formatPrefix64(groups);
}
