import { describe, expect, it } from "vitest";
import { z } from "zod";
import { errorsFor } from "../support/validation-errors.ts";

describe("zod issues as FastAPI (pydantic v2) validation errors", () => {
  it("missing field", () => {
    expect(errorsFor(z.object({ name: z.string() }), {})).toEqual([{ type: "missing", loc: ["body", "name"], msg: "Field required" }]);
  });

  it("an absent literal or enum field is missing too", () => {
    expect(errorsFor(z.object({ compute_type: z.literal("k8s"), plan: z.enum(["a", "b"]) }), {}).map((e) => e.type)).toEqual(["missing", "missing"]);
  });

  it("uuid path parameter", () => {
    expect(errorsFor(z.object({ listener_id: z.uuid() }), { listener_id: "abc" }, "path")).toEqual([
      { type: "uuid_parsing", loc: ["path", "listener_id"], msg: expect.stringMatching(/^Input should be a valid UUID/), input: "abc" },
    ]);
  });

  it("query integers: bounds and parsing", () => {
    const limit = z.object({ limit: z.coerce.number().int().min(1).max(500) });
    expect(errorsFor(limit, { limit: "501" }, "query")[0]).toEqual({
      type: "less_than_equal",
      loc: ["query", "limit"],
      msg: "Input should be less than or equal to 500",
      input: "501",
      ctx: { le: 500 },
    });
    expect(errorsFor(limit, { limit: "0" }, "query")[0]).toMatchObject({ type: "greater_than_equal", ctx: { ge: 1 } });
    expect(errorsFor(limit, { limit: "abc" }, "query")[0]).toMatchObject({ type: "int_parsing", loc: ["query", "limit"] });
    expect(errorsFor(limit, { limit: "1.5" }, "query")[0]).toMatchObject({ type: "int_parsing" });
  });

  it("body types, enums and literals", () => {
    const schema = z.object({ n: z.int(), on: z.boolean(), tags: z.array(z.string()), source: z.enum(["github", "external_docker"]), kind: z.literal("k8s") });
    const errors = errorsFor(schema, { n: "x", on: "yes", tags: "a", source: "svn", kind: "ecs" });
    expect(errors.map((e) => [e.loc.join("."), e.type])).toEqual([
      ["body.n", "int_type"],
      ["body.on", "bool_type"],
      ["body.tags", "list_type"],
      ["body.source", "enum"],
      ["body.kind", "literal_error"],
    ]);
    expect(errors[3]!.msg).toBe("Input should be 'github' or 'external_docker'");
    expect(errors[4]!.msg).toBe("Input should be 'k8s'");
  });

  it("nested locations keep array indexes as numbers", () => {
    const schema = z.object({ rules: z.array(z.object({ match_paths: z.array(z.string().min(1)) })) });
    expect(errorsFor(schema, { rules: [{ match_paths: ["/a", ""] }] })[0]).toMatchObject({
      loc: ["body", "rules", 0, "match_paths", 1],
      type: "string_too_short",
    });
  });

  it("custom refinements carry their own type", () => {
    const schema = z.object({ cpu: z.string().refine((v) => /^\d+m?$/.test(v), { message: "not a quantity", params: { type: "quantity_parsing" } }) });
    expect(errorsFor(schema, { cpu: "lots" })[0]).toEqual({ type: "quantity_parsing", loc: ["body", "cpu"], msg: "not a quantity", input: "lots" });
    const plain = z.object({ a: z.string().refine(() => false, "bad") });
    expect(errorsFor(plain, { a: "x" })[0]).toMatchObject({ type: "value_error", msg: "Value error, bad" });
  });

  it("unknown keys of a strict object are extra_forbidden, one error each", () => {
    expect(errorsFor(z.strictObject({ a: z.string() }), { a: "x", b: 1, c: 2 })).toEqual([
      { type: "extra_forbidden", loc: ["body", "b"], msg: "Extra inputs are not permitted", input: 1 },
      { type: "extra_forbidden", loc: ["body", "c"], msg: "Extra inputs are not permitted", input: 2 },
    ]);
  });
});
