import { cachedPerEnv } from "../gateway/runtime.ts";
import { SettingError } from "../http/setting-error.ts";

/**
 * What a token may do: "operator" everything, "read" only GET and HEAD (metrics scraping, the
 * dashboard to look at): docs/admin.md, "Tokens and roles".
 */
export type AdminRole = "operator" | "read";

/** An admin token, the name the audit log records for changes made with it, and its role. */
export interface AdminToken {
  readonly name: string;
  readonly token: string;
  readonly role: AdminRole;
}

/** Shorter tokens are refused: the admin API can change every limit. */
export const MIN_TOKEN_LENGTH = 16;
const NAME = /^[a-z0-9][a-z0-9._-]{0,31}$/;

/**
 * The admin tokens; empty: the admin API is off (every path but health answers 404). A bad token
 * setting fails the admin API only (500 naming the setting, never a token): traffic keeps flowing.
 */
export const configuredTokens = cachedPerEnv((env) => adminTokens(env.ADMIN_TOKEN, env.ADMIN_TOKENS, env.ADMIN_READ_TOKENS));

/**
 * ADMIN_TOKEN is named "admin"; ADMIN_TOKENS adds named ones, `alice=<token>, oncall=<token>`, so
 * the audit log says who made a change; all three are operators. ADMIN_READ_TOKENS names
 * read-only ones the same way (`prometheus=<token>`). A name is used once across all of them.
 * Errors name the entry, never show a token.
 */
export function adminTokens(single: string | undefined, named: string | undefined, readOnly?: string): AdminToken[] {
  const tokens: AdminToken[] = [];
  if (single) tokens.push({ name: "admin", token: single, role: "operator" });
  tokens.push(...namedTokens("ADMIN_TOKENS", named, "operator"), ...namedTokens("ADMIN_READ_TOKENS", readOnly, "read"));
  for (const entry of tokens) {
    const { name, token } = entry;
    // The variable the entry came from, for the error to name.
    const setting = entry.role === "read" ? "ADMIN_READ_TOKENS" : entry === tokens[0] && single ? "ADMIN_TOKEN" : "ADMIN_TOKENS";
    if (token.length < MIN_TOKEN_LENGTH)
      throw new SettingError(setting, `gateway misconfigured: the admin token "${name}" is shorter than ${MIN_TOKEN_LENGTH} characters`);
    if (tokens.filter((t) => t.name === name).length > 1)
      throw new SettingError(setting, `gateway misconfigured: the admin token name "${name}" is used twice`);
    // One token with two names (or two roles) would leave the audit log and the role to chance.
    const twin = tokens.find((t) => t.token === token && t.name !== name);
    if (twin) throw new SettingError(setting, `gateway misconfigured: the admin tokens "${name}" and "${twin.name}" are the same token; give each its own`);
  }
  return tokens;
}

/** The `name=token, ...` entries of `setting`, each given `role`. */
function namedTokens(setting: string, text: string | undefined, role: AdminRole): AdminToken[] {
  const tokens: AdminToken[] = [];
  for (const [index, entry] of (text ?? "")
    .split(",")
    .map((e) => e.trim())
    .filter(Boolean)
    .entries()) {
    const at = entry.indexOf("=");
    const name = at === -1 ? "" : entry.slice(0, at).trim();
    if (!NAME.test(name))
      throw new SettingError(
        setting,
        `gateway misconfigured: ${setting} entry ${index + 1} is not name=token with a name of lowercase letters, digits, ".", "_" or "-"`,
      );
    tokens.push({ name, token: entry.slice(at + 1).trim(), role });
  }
  return tokens;
}
