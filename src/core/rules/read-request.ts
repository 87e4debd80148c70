/*
 * One reading of a request, shared by counting and forwarding.
 *
 * A limit holds only if the gateway counts the request the upstream will act on. The gateway
 * forwards the path as the client sent it and reads it as the upstream will, and refuses what the
 * upstream could read differently from the gateway (docs/rules.md, "What the gateway refuses, and why"):
 * - the path: decoded once, canonical segments (normalize.ts), for the rules only; a spelling the
 *   upstream would route otherwise (a trailing or doubled `/`, a dot segment, an encoded slash
 *   where the agent server's two implementations disagree) is refused (path-spelling.ts); a
 *   `{uuid}` segment of a template route in any spelling pydantic accepts is read as the
 *   canonical UUID (uuid.ts), and forwarded as sent;
 * - identity headers: Starlette reads the first of several `x-api-key` lines, while a Worker sees
 *   them joined with ", ", so a repeated header or a comma in the value is refused;
 * - method-override headers: the gateway counts the request-line method; an upstream or
 *   middleware that honoured an override would act on another, so they are refused.
 * The gateway middleware and the explain command both call `readRequest`.
 */
import type { RuleTable } from "./load.ts";
import { normalizePath } from "./normalize.ts";
import { isSlashRoute, pathReadingOf, spellingRefusal } from "./path-spelling.ts";
import { pathSegments } from "./request-facts.ts";
import { canonicalUuid } from "./uuid.ts";
import { readUpgrade } from "./websocket-upgrade.ts";

/** What `readRequest` needs of the headers: the Fetch API's `Headers` (repeated lines joined by ", "). */
export interface HeaderReader {
  get(name: string): string | null;
}

export interface RawRequest {
  readonly method: string;
  /**
   * The upstream's own path as the rules read it, still percent-encoded, without query: the path
   * as sent (URL.pathname), or what routing left of it below a mount or a deployment's prefix.
   */
  readonly rawPath: string;
  /**
   * The whole path as the client sent it (URL.pathname, a local mount included), whose spelling
   * the upstream must read as the gateway does (path-spelling.ts); `rawPath` when absent.
   */
  readonly sentPath?: string;
  readonly headers: HeaderReader;
  /** The query as sent (URL.search), read only on a WebSocket upgrade; "" when absent. */
  readonly search?: string;
}

export type RequestReading =
  | {
      readonly ok: true;
      readonly method: string;
      /** Decoded canonical path, UUID route parameters canonical: what rules match. */
      readonly path: string;
      /** `rawPath` as given, never rewritten: the upstream receives the path as sent. */
      readonly upstreamPath: string;
      readonly apiKey: string | null;
      readonly userId: string | null;
      /** A WebSocket upgrade the proxy relays as one (websocket-upgrade.ts). */
      readonly websocket: boolean;
    }
  | { readonly ok: false; readonly status: 400; readonly detail: string };

/** Headers that carry an identity a rule counts by. */
export const IDENTITY_HEADERS = ["x-api-key", "x-user-id"] as const;

/** Headers some frameworks read as "treat this request as another method". */
export const METHOD_OVERRIDE_HEADERS = ["x-http-method-override", "x-http-method", "x-method-override"] as const;

/**
 * Reads `raw` as the upstream will, or says why it is refused (400, before any counter or upstream).
 *
 * @example
 * readRequest(hostedApiTable, { method: "GET", rawPath: "/api/v1/runs/%7B...%7D", headers })
 * // { ok: true, path: "/api/v1/runs/<canonical uuid>", upstreamPath: "/api/v1/runs/%7B...%7D", ... }
 * readRequest(agentServerTable, { method: "GET", rawPath: "/ok/", headers })
 * // { ok: false, status: 400, detail: "Path \"/ok/\" ends in \"/\": ... Send \"/ok\" instead." }
 */
export function readRequest(table: RuleTable, raw: RawRequest): RequestReading {
  for (const name of METHOD_OVERRIDE_HEADERS) {
    if (raw.headers.get(name) !== null) {
      return refuse(
        `Header ${name} is not accepted: the rate limit counts the request as ${raw.method.toUpperCase()}, and an upstream ` +
          `that honoured the header would act on another method. Send the method you mean instead.`,
      );
    }
  }
  const identity: Record<(typeof IDENTITY_HEADERS)[number], string | null> = { "x-api-key": null, "x-user-id": null };
  for (const name of IDENTITY_HEADERS) {
    const value = raw.headers.get(name);
    if (value !== null && value.includes(",")) {
      return refuse(
        `Header ${name} must be sent once, with a single value and no comma: the upstream reads only the first ` +
          `value, so a request carrying several could not be counted as the caller it acts for.`,
      );
    }
    identity[name] = value;
  }

  // Only a request with an Upgrade header pays for reading one.
  const upgrade = raw.headers.get("upgrade");
  const upgrading = upgrade === null ? undefined : readUpgrade(raw.method, upgrade, raw.headers, raw.search ?? "");
  if (upgrading && !upgrading.ok) return refuse(upgrading.detail);

  const sentPath = raw.sentPath ?? raw.rawPath;
  const sent = sentPath === raw.rawPath ? undefined : normalizePath(sentPath);
  if (sent && !sent.ok) return refuse(`Malformed request path: ${sent.detail}`);
  const normalized = normalizePath(raw.rawPath);
  if (!normalized.ok) return refuse(`Malformed request path: ${normalized.detail}`);
  const misread = spellingRefusal(
    sentPath,
    pathReadingOf(table.name),
    (sent ?? normalized).upstreamPath,
    sentPath.endsWith("/") && isSlashRoute(table.name, `${normalized.upstreamPath}/`),
  );
  if (misread !== undefined) return refuse(misread);
  return {
    ok: true,
    method: raw.method,
    path: canonicalUuidParameters(table, normalized.path),
    upstreamPath: raw.rawPath,
    apiKey: identity["x-api-key"],
    userId: identity["x-user-id"],
    websocket: upgrading?.websocket ?? false,
  };
}

function refuse(detail: string): RequestReading {
  return { ok: false, status: 400, detail };
}

/** Every template pattern of the table under every root, as segments ("{uuid}" marks a parameter), by segment count. */
const templateCache = new WeakMap<RuleTable, Map<number, string[][]>>();

function templatesOf(table: RuleTable): Map<number, string[][]> {
  let templates = templateCache.get(table);
  if (!templates) {
    templates = new Map();
    for (const rule of table.rules) {
      for (const matcher of rule.matchers) {
        if (matcher.path?.kind !== "template") continue;
        for (const root of table.roots) {
          const template = [...pathSegments(root), ...pathSegments(matcher.path.pattern)];
          templates.set(template.length, [...(templates.get(template.length) ?? []), template]);
        }
      }
    }
    templateCache.set(table, templates);
  }
  return templates;
}

/**
 * The path with the `{uuid}` segments of a template route it has the shape of (whatever the
 * method: the upstream's route reads the parameter the same way for each) read as the canonical
 * UUID, as the upstream's pydantic `UUID` reads them. Other paths are returned unchanged.
 */
function canonicalUuidParameters(table: RuleTable, path: string): string {
  const segments = pathSegments(path);
  for (const template of templatesOf(table).get(segments.length) ?? []) {
    const fits = template.every((want, i) => (want === "{uuid}" ? canonicalUuid(segments[i]!) !== undefined : want === segments[i]));
    if (!fits) continue;
    template.forEach((want, i) => {
      if (want === "{uuid}") segments[i] = canonicalUuid(segments[i]!)!;
    });
    return `/${segments.join("/")}`;
  }
  return path;
}
