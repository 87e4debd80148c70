import { z } from "zod";
import { checkedString, uniqueBy, valueError } from "../../shared/pydantic/value-error.ts";

/**
 * A template's outbound proxy configuration: rules that match requests by host and path and
 * inject headers (whose values may reference variables as `${NAME}`), and hosts that bypass the
 * proxy. The check functions answer why a value is refused, or nothing; the schemas below run
 * them. Pure: imports only zod.
 */

/** RFC 9110 `token`: the characters allowed in a header name. */
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** A variable name inside `${...}`: an identifier, as in shell and Kubernetes env var names. */
const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
// HTAB is allowed inside a header value; every other control character (CR and LF above all,
// which would split the header) is not.
const HEADER_VALUE_FORBIDDEN = /[\x00-\x08\x0a-\x1f\x7f]/;
const LABEL = "[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?";
const HOST_NAME = `${LABEL}(?:\\.${LABEL})*`;
const IPV6 = "\\[[0-9A-Fa-f:.]+\\]";
const PORT = "(?::(\\d{1,5}))?";
/** A host a rule matches: a name or IP, optionally `*.`-prefixed (any subdomain), optionally with a port. */
const HOST_PATTERN = new RegExp(`^(?:(?:\\*\\.)?${HOST_NAME}|${IPV6})${PORT}$`);
const CIDR = /^(?:\d{1,3}(?:\.\d{1,3}){3}|[0-9A-Fa-f:]*:[0-9A-Fa-f:.]*)\/\d{1,3}$/;

/** Why `name` is not a valid header name (an HTTP token), or nothing. */
export function checkHeaderName(name: string): string | undefined {
  if (name === "") return "a header name cannot be empty";
  if (!HEADER_NAME.test(name)) return `'${name}' is not a valid header name: use letters, digits and !#$%&'*+-.^_\`|~ only`;
  return undefined;
}

/**
 * Why `value` is not a valid injected header value, or nothing. `${NAME}` references a variable
 * (NAME an identifier); a `$` not followed by `{` is literal text. There is no escape for a
 * literal `${`.
 */
export function checkHeaderValue(value: string): string | undefined {
  const control = HEADER_VALUE_FORBIDDEN.exec(value);
  if (control) return `a header value cannot contain control characters (found U+${control[0].charCodeAt(0).toString(16).padStart(4, "0").toUpperCase()})`;
  const references = scanReferences(value);
  return references.ok ? undefined : references.reason;
}

/** The variable names a (valid) header value references, in order, e.g. `["API_TOKEN"]`. */
export function headerVariables(value: string): string[] {
  const references = scanReferences(value);
  return references.ok ? references.names : [];
}

function scanReferences(value: string): { ok: true; names: string[] } | { ok: false; reason: string } {
  const names: string[] = [];
  for (let start = value.indexOf("${"); start !== -1; start = value.indexOf("${", start)) {
    const end = value.indexOf("}", start + 2);
    if (end === -1) return { ok: false, reason: `unterminated variable reference at position ${start}: write \${NAME}` };
    const name = value.slice(start + 2, end);
    if (!VARIABLE_NAME.test(name)) {
      return { ok: false, reason: `'\${${name}}' is not a valid variable reference: NAME must be letters, digits and _, not starting with a digit` };
    }
    names.push(name);
    start = end + 1;
  }
  return { ok: true, names };
}

/** Why `pattern` is not a valid `match_paths` entry (an absolute path that may end in `*`), or nothing. */
export function checkPathPattern(pattern: string): string | undefined {
  if (!pattern.startsWith("/")) return `'${pattern}' must start with / (e.g. /v1/*)`;
  if (/[\s\x00-\x1f\x7f]/.test(pattern)) return `'${pattern}' contains whitespace or control characters`;
  if (/[?#]/.test(pattern)) return `'${pattern}' matches the path only: drop the query (?) or fragment (#)`;
  const star = pattern.indexOf("*");
  if (star !== -1 && star !== pattern.length - 1) return `'${pattern}' has a wildcard * that is not at the end: a path pattern may only end in *`;
  return undefined;
}

/** Why `host` is not a valid `match_hosts` entry, or nothing. */
export function checkHostPattern(host: string): string | undefined {
  if (host.includes("://")) return `'${host}' is a URL: give the host only (e.g. api.example.com)`;
  if (host.includes("/")) return `'${host}' contains a path: give the host only and put paths in match_paths`;
  if (host.includes("*") && !/^\*\.[^*]+$/.test(host)) return `'${host}' has a wildcard that is not a whole leading label: write *.example.com`;
  const match = HOST_PATTERN.exec(host);
  if (!match || host.length > 253) return `'${host}' is not a valid host name`;
  if (match[1] !== undefined && Number(match[1]) > 65535) return `'${host}' has a port above 65535`;
  return undefined;
}

/** Why `entry` is not a valid `no_proxy` entry (`*`, a host, `.domain` suffix, IP or CIDR range), or nothing. */
export function checkNoProxyEntry(entry: string): string | undefined {
  if (/[\s,]/.test(entry)) return `'${entry}' contains whitespace or a comma: give one host per no_proxy entry`;
  if (entry === "*" || CIDR.test(entry)) return undefined;
  const host = entry.startsWith(".") ? entry.slice(1) : entry;
  if (host.includes("*") && !host.startsWith("*.")) return `'${entry}' has a wildcard that is not a whole leading label: write *.example.com or .example.com`;
  return checkHostPattern(host) === undefined ? undefined : `'${entry}' is not a host, domain suffix (.example.com), IP address or CIDR range`;
}

/** Why `name` is not a valid rule name, or nothing. */
function checkRuleName(name: string): string | undefined {
  if (name.trim() === "") return "a rule name cannot be blank";
  if (name.trim() !== name) return "a rule name cannot start or end with whitespace";
  return undefined;
}

/**
 * `inject_headers`: header name to value; names are case-insensitive, so one may appear once. A
 * bad name is reported at `[..., name, "[key]"]`, where pydantic reports a dict key's errors.
 */
export const InjectHeaders = z.record(z.string(), checkedString(checkHeaderValue, z.string().max(8192))).superRefine((headers, ctx) => {
  const seen = new Map<string, string>();
  const names = Object.keys(headers);
  if (names.length > 64) ctx.addIssue(valueError(`at most 64 headers may be injected, got ${names.length}`));
  for (const name of names) {
    const reason = checkHeaderName(name);
    if (reason !== undefined) ctx.addIssue(valueError(reason, [name, "[key]"]));
    const first = seen.get(name.toLowerCase());
    if (first !== undefined) ctx.addIssue(valueError(`header '${name}' repeats '${first}' (header names are case-insensitive)`, [name, "[key]"]));
    else seen.set(name.toLowerCase(), name);
  }
});

/** Rule: `name` and `match_hosts` are required; a rule without paths matches every path (`/*`). */
export const ProxyRule = z.strictObject({
  name: checkedString(checkRuleName, z.string().max(128)),
  match_hosts: z.array(checkedString(checkHostPattern)).min(1).max(100),
  match_paths: z
    .array(checkedString(checkPathPattern, z.string().max(2048)))
    .min(1)
    .max(100)
    .default(() => ["/*"]),
  inject_headers: InjectHeaders.default(() => ({})),
  enabled: z.boolean().default(true),
});
export type ProxyRule = z.output<typeof ProxyRule>;

/** proxy_config: both lists default to empty; rule names are unique within a template. */
export const ProxyConfig = z
  .strictObject({
    rules: z
      .array(ProxyRule)
      .max(100)
      .superRefine(uniqueBy((rule) => rule.name, ["name"], "rule name"))
      .default(() => []),
    no_proxy: z
      .array(checkedString(checkNoProxyEntry, z.string().max(253)))
      .max(256)
      .default(() => []),
  })
  .default(() => ({ rules: [], no_proxy: [] }));
export type ProxyConfig = z.output<typeof ProxyConfig>;
