import { ANCHORED_KINDS, type Matcher, type PathPattern } from "./schema.ts";
import { pathSegments } from "./request-facts.ts";
import { canonicalUuid } from "./uuid.ts";

/** True when `segment` is a UUID in any spelling the upstream's UUID type accepts (see uuid.ts). */
export function isUuid(segment: string): boolean {
  return canonicalUuid(segment) !== undefined;
}

/**
 * `GET` matchers also cover `HEAD`: the upstream serves HEAD with its GET handler, so HEAD must
 * not escape a stricter GET rule. Methods compare case-insensitively for the same reason.
 */
export function methodMatches(expected: string | undefined, method: string): boolean {
  if (!expected) return true;
  const actual = method.toUpperCase();
  return actual === expected || (expected === "GET" && actual === "HEAD");
}

/**
 * The reference (slow, obviously correct) meaning of a path pattern under a table's roots: the
 * first root under which it matches (anchored kinds are tried below each root in order; contains
 * and suffix patterns look at the whole path, so their root is "/"), or undefined. The compiled
 * classifier must agree with it; `explain` uses it to say why.
 */
export function pathMatchesUnder(pattern: PathPattern, path: string, roots: readonly string[]): string | undefined {
  if (!ANCHORED_KINDS.has(pattern.kind)) return pathMatches(pattern, path) ? "/" : undefined;
  return roots.find((root) => {
    if (root === "/") return pathMatches(pattern, path);
    return path.startsWith(`${root}/`) && pathMatches(pattern, path.slice(root.length));
  });
}

/** The meaning of a path pattern from the root "/", segment by segment. */
export function pathMatches(pattern: PathPattern, path: string): boolean {
  const want = pathSegments(pattern.pattern);
  const have = pathSegments(path);
  const equalAt = (offset: number) => want.every((segment, i) => have[offset + i] === segment);
  switch (pattern.kind) {
    case "exact":
      return have.length === want.length && equalAt(0);
    case "prefix":
      return have.length >= want.length && equalAt(0);
    case "suffix":
      return have.length >= want.length && equalAt(have.length - want.length);
    case "contains":
      for (let offset = 0; offset + want.length <= have.length; offset++) if (equalAt(offset)) return true;
      return false;
    case "template":
      return have.length === want.length && want.every((segment, i) => (segment === "{uuid}" ? isUuid(have[i]!) : have[i] === segment));
  }
}

/**
 * Reference meaning of a whole matcher (method and path; an empty matcher matches everything):
 * the root it matched under, or undefined.
 */
export function matcherMatches(matcher: Matcher, method: string, path: string, roots: readonly string[] = ["/"]): string | undefined {
  if (!methodMatches(matcher.method, method)) return undefined;
  return matcher.path ? pathMatchesUnder(matcher.path, path, roots) : "/";
}

/** Human-readable form of a matcher, e.g. `POST contains /charts`, `exact /runs/query under /api/v1` or `any request`. */
export function describeMatcher(matcher: Matcher, root = "/"): string {
  const parts: string[] = [];
  if (matcher.method) parts.push(matcher.method === "GET" ? "GET (or HEAD)" : matcher.method);
  if (matcher.path) parts.push(`${matcher.path.kind} ${matcher.path.pattern}`);
  if (root !== "/") parts.push(`under ${root}`);
  return parts.length ? parts.join(" ") : "any request";
}
