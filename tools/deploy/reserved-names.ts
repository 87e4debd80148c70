// Names no fork can own: a host or origin under one of them is an example left in wrangler.toml.

/** Second-level names reserved for documentation (RFC 2606 section 3). */
const EXAMPLE_DOMAINS = ["example.com", "example.net", "example.org"];

/** Top-level names reserved for testing, documentation and loopback (RFC 2606 section 2, RFC 6761). */
const RESERVED_TLDS = ["example", "test", "invalid", "localhost"];

/**
 * Why `host` cannot be deployed (it is, or lies under, a reserved name), or undefined when it can.
 * A wildcard pattern (`*.agents.example.com`) is judged by its suffix.
 *
 * @example
 * reservedName("api.us.example.com") // 'it is under example.com, reserved for examples (RFC 2606)'
 */
export function reservedName(host: string): string | undefined {
  const name = host.toLowerCase().replace(/^\*\./, "").replace(/\.$/, "");
  const domain = EXAMPLE_DOMAINS.find((d) => name === d || name.endsWith(`.${d}`));
  if (domain) return `it is under ${domain}, reserved for examples (RFC 2606)`;
  const tld = name.split(".").at(-1)!;
  if (RESERVED_TLDS.includes(tld)) return `it is under .${tld}, a reserved top-level name (RFC 2606, RFC 6761)`;
  return undefined;
}
