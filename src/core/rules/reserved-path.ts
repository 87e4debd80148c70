/*
 * The gateway's own path prefix, `/_tollgate`: the admin API's on its hosts, never an upstream's.
 *
 * Whether a request is under it is decided on the canonical path (normalize.ts), the path the
 * gateway forwards, never on the spelling sent: `//_tollgate/health`, `/%2F_tollgate/health` or
 * `/x/..//_tollgate/health` are the upstream's `/_tollgate/health` after its single decode, so each
 * is the admin API's or a 404, never forwarded with what it carries (an admin token).
 * docs/admin.md, "Hosts".
 */
import { normalizePath } from "./normalize.ts";

export const RESERVED_PREFIX = "/_tollgate";

/** Whether a canonical path (normalizePath's `path`) is the reserved prefix or below it. */
export function isReservedPath(path: string): boolean {
  return path.startsWith(RESERVED_PREFIX) && (path.length === RESERVED_PREFIX.length || path.charCodeAt(RESERVED_PREFIX.length) === 0x2f);
}

/**
 * Whether a path as sent (still percent-encoded, no query) canonicalises into the reserved prefix.
 * A path that does not canonicalise is not (the request path refuses it with 400).
 *
 * @example
 * reachesReservedPath("/%2F_tollgate/health"); // true
 */
export function reachesReservedPath(rawPath: string): boolean {
  const normalized = normalizePath(rawPath);
  return normalized.ok && isReservedPath(normalized.path);
}
