import type { Matcher, PathPattern } from "./schema.ts";
import { pathSegments } from "./request-facts.ts";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** True when `segment` is a UUID in its canonical 8-4-4-4-12 hex spelling. */
export function isUuid(segment: string): boolean {
  return segment.length === 36 && UUID.test(segment);
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
 * The reference (slow, obviously correct) meaning of a path pattern, segment by segment. The
 * compiled classifier must agree with it; `explain` uses it to say why.
 */
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
      return (
        have.length === want.length &&
        want.every((segment, i) => (segment === "{uuid}" ? isUuid(have[i]!) : have[i] === segment))
      );
  }
}

/** Reference meaning of a whole matcher (method and path; an empty matcher matches everything). */
export function matcherMatches(matcher: Matcher, method: string, path: string): boolean {
  return methodMatches(matcher.method, method) && (!matcher.path || pathMatches(matcher.path, path));
}

/** Human-readable form of a matcher, e.g. `POST contains /charts` or `any request`. */
export function describeMatcher(matcher: Matcher): string {
  const parts: string[] = [];
  if (matcher.method) parts.push(matcher.method === "GET" ? "GET (or HEAD)" : matcher.method);
  if (matcher.path) parts.push(`${matcher.path.kind} ${matcher.path.pattern}`);
  return parts.length ? parts.join(" ") : "any request";
}
