import { clientIpKey } from "../rules/client-ip.ts";

/*
 * IPv6 prefixes for identity overrides. Counters key an IPv6 client by its /64 (client-ip.ts), so
 * a prefix override names a prefix of length 1..64, and a request's /64 key is cut to each length
 * in use and compared. Prefixes are written like client keys: RFC 5952 text of the masked address
 * and the length, e.g. `2001:db8:ab00::/40`; at length 64 that is exactly the client key, so a /64
 * prefix override and an `ip` override of the same subscriber are the same identity.
 */

/** Longest prefix that means anything: clients are keyed by their /64. */
export const MAX_PREFIX_LENGTH = 64;

/** The four high groups of a /64 client key (`2001:db8:1:2::/64`), or undefined for any other key. */
function highGroups(key: string): number[] | undefined {
  if (!key.endsWith("::/64")) return undefined;
  const head = key.slice(0, -"::/64".length);
  const groups = head === "" ? [] : head.split(":").map((g) => Number.parseInt(g, 16));
  if (groups.length > 4 || groups.some((g) => !Number.isInteger(g))) return undefined;
  while (groups.length < 4) groups.push(0);
  return groups;
}

/** `groups` (the high 64 bits) masked to `length` bits, in the client keys' spelling. */
function format(groups: readonly number[], length: number): string {
  const masked = groups.map((g, i) => {
    const keep = Math.min(16, Math.max(0, length - 16 * i));
    return keep === 0 ? 0 : g & (0xffff << (16 - keep)) & 0xffff;
  });
  let end = 4;
  while (end > 0 && masked[end - 1] === 0) end--;
  return `${masked
    .slice(0, end)
    .map((g) => g.toString(16))
    .join(":")}::/${length}`;
}

/** The /`length` prefix holding the client with this /64 key, or undefined for an IPv4 client. */
export function prefixOfClient(clientKey: string, length: number): string | undefined {
  const groups = highGroups(clientKey);
  return groups ? format(groups, length) : undefined;
}

/**
 * Reads a prefix as an operator writes it (`2001:db8:ab00::/40`, any spelling of the address,
 * host bits allowed and dropped) into its canonical text and length.
 */
export function parsePrefix(text: string): { ok: true; prefix: string; length: number } | { ok: false; why: string } {
  const slash = text.lastIndexOf("/");
  if (slash === -1) return { ok: false, why: `"${text}" is not address/length` };
  const lengthText = text.slice(slash + 1);
  const length = Number(lengthText);
  if (!/^\d{1,3}$/.test(lengthText) || length < 1 || length > MAX_PREFIX_LENGTH) {
    return { ok: false, why: `prefix length must be 1 to ${MAX_PREFIX_LENGTH} (clients are keyed by their /64); got "${lengthText}"` };
  }
  const key = clientIpKey(text.slice(0, slash));
  const prefix = prefixOfClient(key, length);
  if (!prefix) return { ok: false, why: `"${text.slice(0, slash)}" is not an IPv6 address` };
  return { ok: true, prefix, length };
}
