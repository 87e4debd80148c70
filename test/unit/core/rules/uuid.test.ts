import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalUuid } from "../../../../src/core/rules/uuid.ts";

const U = "67e55044-10b1-426f-9247-bb680e5fe0c8";

describe("canonicalUuid: the spellings pydantic's UUID (Rust uuid::parse_str) accepts", () => {
  it.each([
    [U, "hyphenated"],
    [U.toUpperCase(), "upper case"],
    ["67E55044-10b1-426F-9247-bb680E5FE0C8", "mixed case"],
    [U.replaceAll("-", ""), "simple (32 hex digits)"],
    [`{${U}}`, "braced"],
    [`{${U.toUpperCase()}}`, "braced, upper case"],
    [`urn:uuid:${U}`, "urn"],
  ])("accepts %s (%s) as the canonical form", (spelling) => {
    expect(canonicalUuid(spelling)).toBe(U);
  });

  it.each([
    ["", "empty"],
    [`${U}0`, "37 characters"],
    [U.slice(0, 35), "35 characters"],
    [`{${U.replaceAll("-", "")}}`, "braces around the simple form"],
    [`URN:UUID:${U}`, "upper-case urn prefix"],
    [`urn:uuid:${U.replaceAll("-", "")}`, "urn around the simple form"],
    ["67e55044-10b1-426f-9247-bb680e5fe0cg", "a non-hex digit"],
    ["67e5504410b1-426f-9247-bb680e5fe0c8-", "hyphens in the wrong places"],
    [`(${U})`, "parentheses"],
    [` ${U.slice(1)}`, "a leading space"],
    ["+7e55044-10b1-426f-9247-bb680e5fe0c8", "a sign"],
  ])("refuses %j (%s)", (spelling) => {
    expect(canonicalUuid(spelling)).toBeUndefined();
  });

  it("maps every accepted spelling of a random UUID to the same canonical form", () => {
    fc.assert(
      fc.property(fc.uuid(), (u) => {
        const lower = u.toLowerCase();
        for (const spelling of [u, u.toUpperCase(), u.replaceAll("-", ""), `{${u}}`, `urn:uuid:${u}`]) {
          expect(canonicalUuid(spelling)).toBe(lower);
        }
      }),
    );
  });
});
