import { describe, expect, it } from "vitest";
import { JsonObjectSchema, JsonValueSchema } from "../../../emulators/shared/pydantic/json.ts";

/** A parsed JSON value nested `depth` levels (objects and lists), built without recursion. */
function nested(depth: number): unknown {
  const text = '{"n":['.repeat(depth / 2) + "1" + "]}".repeat(depth / 2);
  return JSON.parse(text);
}

describe("JSON fields (config, context, metadata, input)", () => {
  it("check the top level only, so no nesting can overflow the stack in validation", () => {
    // Far deeper than any stack: a recursive check (z.json()) throws RangeError here.
    const deep = nested(200_000);
    expect(JsonObjectSchema.safeParse(deep).success).toBe(true);
    expect(JsonValueSchema.safeParse([deep]).success).toBe(true);
  });

  it("still refuse what is not an object with string keys, as pydantic's dict does", () => {
    for (const value of [[], "x", 1, true]) expect(JsonObjectSchema.safeParse(value).success).toBe(false);
  });
});
