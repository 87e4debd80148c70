/*
 * A reference model of how the hosted API (FastAPI on Starlette, pydantic types) reads the
 * request it receives, written from those frameworks' documented behaviour and independently of
 * the gateway's rules code: it shares no module with src/core/rules. The differential test holds the
 * gateway's forwarding against it.
 *
 * - Starlette routes on `scope["path"]`, the raw path percent-decoded once (uvicorn), split on
 *   "/"; it does not resolve dot segments nor drop empty ones, so a path whose decoding holds
 *   either (`//`, a trailing "/", `%2F..%2F`) is another path than the canonical one: a 404 or a
 *   redirect, never the route the canonical path names.
 * - The hosted API mounts its routers at "/" and at "/api/v1" (row 23 of the published table).
 * - `GET /runs/{run_id}` types `run_id` as `UUID`: pydantic accepts 32 hex digits, the hyphenated
 *   form, the hyphenated form in braces or after "urn:uuid:", hex in either case.
 * - HEAD is answered by the GET route.
 * - A header read with `Header()` is the first value of that exact (dash-spelled) name.
 */

export const MOUNTS = ["/api/v1"] as const;

/** Route shapes whose parameter is a pydantic UUID: "*" marks it. */
export const UUID_ROUTES = [["runs", "*"]] as const;

const H = "[0-9a-fA-F]";
const HYPHENATED = `${H}{8}-${H}{4}-${H}{4}-${H}{4}-${H}{12}`;
const PYDANTIC_UUID = new RegExp(`^(?:${H}{32}|${HYPHENATED}|\\{${HYPHENATED}\\}|urn:uuid:${HYPHENATED})$`);

/** The UUID pydantic reads from `text`, as Python's `str(UUID)` prints it, or undefined. */
export function pydanticUuid(text: string): string | undefined {
  if (!PYDANTIC_UUID.test(text)) return undefined;
  const hex = text.replace(/^urn:uuid:|[{}-]/g, "").toLowerCase();
  return [hex.slice(0, 8), hex.slice(8, 12), hex.slice(12, 16), hex.slice(16, 20), hex.slice(20)].join("-");
}

/** What the upstream acts on. */
export interface UpstreamAction {
  readonly method: string;
  readonly mount: string;
  /** Route segments below the mount, UUID parameters as pydantic parsed them. */
  readonly route: readonly string[];
  readonly apiKey: string | null;
  readonly userId: string | null;
}

/** Starlette's first value of a header (the Fetch API joins repeated lines with ", "). */
function firstValue(headers: Headers, name: string): string | null {
  const value = headers.get(name);
  return value === null ? null : value.split(",")[0]!.trim();
}

/** Whether Starlette routes `wirePath` as another path than its canonical form (see above). */
export function routesAsAnotherPath(wirePath: string): boolean {
  const path = decodeURIComponent(wirePath);
  return (
    path !== "/" &&
    path
      .split("/")
      .slice(1)
      .some((segment) => segment === "" || segment === "." || segment === "..")
  );
}

/** How the upstream reads a request that reached it (method, URL path as sent on the wire, headers). */
export function upstreamReads(method: string, wirePath: string, headers: Headers): UpstreamAction {
  const path = decodeURIComponent(wirePath);
  let segments = path === "/" ? [] : path.split("/").slice(1);
  // Starlette redirects "/api/v1" to "/api/v1/", the mount's own root.
  const mount = MOUNTS.find((m) => path === m || path.startsWith(`${m}/`)) ?? "";
  if (mount) segments = segments.slice(mount.split("/").length - 1);
  const shape = UUID_ROUTES.find((r) => r.length === segments.length && r.every((s, i) => s === "*" || s === segments[i]));
  // A segment that is not a UUID leaves it to another route (/runs/query) or a 422: kept as sent.
  const route = shape ? segments.map((s, i) => (shape[i] === "*" ? (pydanticUuid(s) ?? s) : s)) : segments;
  return {
    method: method === "HEAD" ? "GET" : method,
    mount,
    route,
    apiKey: firstValue(headers, "x-api-key"),
    userId: firstValue(headers, "x-user-id"),
  };
}
