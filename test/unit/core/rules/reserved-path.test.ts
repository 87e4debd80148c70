// Issue 32, finding 5: the reserved prefix is read on the canonical path, so every spelling the
// canonicaliser accepts of every reserved path is reserved, and nothing else is.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { normalizePath } from "../../../../src/core/rules/normalize.ts";
import { isReservedPath, reachesReservedPath } from "../../../../src/core/rules/reserved-path.ts";
import { pathSpelling, reservedPathSpelling } from "../../../support/path-spellings.ts";

describe("reachesReservedPath", () => {
  it.each([
    "/_tollgate/health",
    "//_tollgate/health",
    "/%2F_tollgate/health",
    "/x/..//_tollgate/health",
    "/%5Ftollgate/health",
    "/_tollgate/./health/",
    "/_tollgate",
    "/..%2F_tollgate",
  ])("reserves %s", (raw) => expect(reachesReservedPath(raw)).toBe(true));

  it.each(["/_tollgatex/health", "/x/_tollgate/health", "/%255Ftollgate/health", "/_Tollgate/health", "/_tollgate%zz", "/", "/runs/query"])(
    "does not reserve %s",
    (raw) => expect(reachesReservedPath(raw)).toBe(false),
  );

  it("reserves every spelling the canonicaliser accepts of every reserved path", () => {
    fc.assert(
      fc.property(reservedPathSpelling, ({ path, spelled }) => {
        const normalized = normalizePath(spelled);
        expect(normalized.ok && normalized.path).toBe(path);
        expect(reachesReservedPath(spelled)).toBe(true);
      }),
      { numRuns: 3000 },
    );
  });

  it("reserves no spelling of a path outside the prefix, however close", () => {
    const outside = fc.constantFrom(["_tollgatex"], ["_tollgate_"], ["x", "_tollgate"], ["%5Ftollgate"], ["_TOLLGATE", "health"], ["runs", "query"]);
    fc.assert(
      fc.property(outside.chain(pathSpelling), (spelled) => {
        expect(reachesReservedPath(spelled)).toBe(false);
      }),
      { numRuns: 1000 },
    );
  });

  it("reads whole segments of the canonical path", () => {
    expect(isReservedPath("/_tollgate")).toBe(true);
    expect(isReservedPath("/_tollgate/")).toBe(true);
    expect(isReservedPath("/_tollgatex")).toBe(false);
  });
});
