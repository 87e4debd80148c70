/** What classification needs to know about a request; built by the gateway, or by `explain`. */
export interface RequestFacts {
  /** Request method as received; compared case-insensitively. */
  readonly method: string;
  /** Normalized path (see normalize.ts): decoded, no empty/dot segments, no trailing slash. */
  readonly path: string;
  /** `x-api-key` header value, if any. Empty strings count as absent. */
  readonly apiKey?: string | null;
  /** `x-user-id` header value, if any. Empty strings count as absent. */
  readonly userId?: string | null;
  /** Client address key from `clientIpKey` (IPv4, or an IPv6 /64). */
  readonly clientIp: string;
}

/** The caller a counter is kept for. Values are raw here: hash them before they name anything. */
export type Identity =
  | { readonly kind: "api-key"; readonly apiKey: string }
  | { readonly kind: "user-ip"; readonly userId: string; readonly ip: string }
  | { readonly kind: "ip"; readonly ip: string };

/** Splits a normalized path into its segments: "/" -> [], "/a/b" -> ["a", "b"]. */
export function pathSegments(path: string): string[] {
  return path === "/" || path === "" ? [] : path.slice(1).split("/");
}
