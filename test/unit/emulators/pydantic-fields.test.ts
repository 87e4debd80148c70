// The emulators' field helpers, held to what pydantic (v2) answers for the same input.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { errorsFor } from "../support/validation-errors.ts";
import { float } from "../../../emulators/shared/pydantic/number.ts";
import { optionalBody, optionalField } from "../../../emulators/shared/pydantic/optional.ts";
import { bodyPaging, queryPaging } from "../../../emulators/shared/pydantic/paging.ts";
import { queryBoolean, queryChoices, queryIntegerChoice } from "../../../emulators/shared/pydantic/query.ts";
import { uuid } from "../../../emulators/shared/pydantic/uuid.ts";
import { notEmulated } from "../../../emulators/shared/pydantic/value-error.ts";

/** What the emulator would put in a 422's `detail` for `input`. */
const ID = "67e55044-10b1-426f-9247-bb680e5fe0c8";

describe("uuid", () => {
  const Path = z.object({ id: uuid() });

  it("takes every spelling pydantic's UUID takes, as the canonical lower-case hyphenated form", () => {
    for (const spelling of [ID, ID.toUpperCase(), ID.replaceAll("-", ""), `{${ID}}`, `urn:uuid:${ID}`, "00000000-0000-0000-0000-000000000000"]) {
      expect(Path.parse({ id: spelling }).id, spelling).toBe(spelling.startsWith("0000") ? spelling : ID);
    }
  });

  it("refuses anything else as uuid_parsing", () => {
    for (const bad of ["nope", `${ID}0`, `{${ID}`, `URN:UUID:${ID}`, ID.replace("e", "g")]) {
      expect(errorsFor(Path, { id: bad }, "path"), bad).toEqual([
        { type: "uuid_parsing", loc: ["path", "id"], msg: "Input should be a valid UUID, invalid character or length", input: bad },
      ]);
    }
  });
});

describe("query paging", () => {
  const Query = z.object(queryPaging({ maxLimit: 100, defaultLimit: 20 }));

  it("defaults, and reads signed digits with blanks around them", () => {
    expect(Query.parse({})).toEqual({ limit: 20, offset: 0 });
    expect(Query.parse({ limit: " 7 ", offset: "+3" })).toEqual({ limit: 7, offset: 3 });
  });

  it("refuses what is not an integer to pydantic (int_parsing), and out-of-bounds values with their bound", () => {
    for (const bad of ["", "0x10", "1e2", "1.5", "ten"]) {
      expect(errorsFor(Query, { limit: bad }, "query")[0], bad).toMatchObject({ type: "int_parsing", loc: ["query", "limit"], input: bad });
    }
    expect(errorsFor(Query, { limit: "101", offset: "-1" }, "query")).toEqual([
      { type: "less_than_equal", loc: ["query", "limit"], msg: "Input should be less than or equal to 100", input: "101", ctx: { le: 100 } },
      { type: "greater_than_equal", loc: ["query", "offset"], msg: "Input should be greater than or equal to 0", input: "-1", ctx: { ge: 0 } },
    ]);
    expect(errorsFor(Query, { limit: "99999999999999999999999" }, "query")[0]).toMatchObject({ type: "less_than_equal" });
  });
});

describe("body paging", () => {
  const Body = z.object(bodyPaging({ maxLimit: 1000, defaultLimit: 10 }));

  it("defaults when absent or null, and takes JSON integers only", () => {
    expect(Body.parse({})).toEqual({ limit: 10, offset: 0 });
    expect(Body.parse({ limit: null, offset: null })).toEqual({ limit: 10, offset: 0 });
    expect(errorsFor(Body, { limit: "5", offset: 1.5 }).map((e) => [e.type, e.loc.join(".")])).toEqual([
      ["int_type", "body.limit"],
      ["int_from_float", "body.offset"],
    ]);
  });
});

describe("queryBoolean", () => {
  const Query = z.object({ flag: queryBoolean() });

  it("reads pydantic's words in any case; absent is false", () => {
    for (const yes of ["true", "TRUE", "1", "yes", "on", "t", "Y"]) expect(Query.parse({ flag: yes }).flag, yes).toBe(true);
    for (const no of ["false", "0", "No", "off", "f", "n"]) expect(Query.parse({ flag: no }).flag, no).toBe(false);
    expect(Query.parse({}).flag).toBe(false);
  });

  it("refuses anything else as bool_parsing", () => {
    expect(errorsFor(Query, { flag: "maybe" }, "query")).toEqual([
      { type: "bool_parsing", loc: ["query", "flag"], msg: "Input should be a valid boolean, unable to interpret input", input: "maybe" },
    ]);
  });
});

describe("queryIntegerChoice", () => {
  const Query = z.object({ check_db: queryIntegerChoice([0, 1]).default(0) });

  it("reads the listed integers (blanks and a sign allowed, as pydantic's int); absent is the default", () => {
    expect(Query.parse({ check_db: "1" }).check_db).toBe(1);
    expect(Query.parse({ check_db: " +0 " }).check_db).toBe(0);
    expect(Query.parse({}).check_db).toBe(0);
  });

  it("refuses another number or a word as literal_error", () => {
    for (const value of ["2", "abc", "", "1.0"]) {
      expect(errorsFor(Query, { check_db: value }, "query"), value).toEqual([
        { type: "literal_error", loc: ["query", "check_db"], msg: "Input should be 0 or 1", input: value },
      ]);
    }
  });
});

describe("queryChoices", () => {
  const Query = z.object({ select: queryChoices(["run_id", "status", "metadata"]), modes: queryChoices(["a", "b"], { commas: true }) });

  it("reads the parameter repeated, one JSON list, or (with commas) a comma-separated value; absent is undefined", () => {
    expect(Query.parse({ select: ["run_id", "status"] }).select).toEqual(["run_id", "status"]);
    expect(Query.parse({ select: '["status","metadata"]' }).select).toEqual(["status", "metadata"]);
    expect(Query.parse({ select: "status" }).select).toEqual(["status"]);
    expect(Query.parse({ modes: "a, b" }).modes).toEqual(["a", "b"]);
    expect(Query.parse({})).toEqual({ select: undefined, modes: undefined });
  });

  it("refuses a name outside the set as enum, at its index", () => {
    expect(errorsFor(Query, { select: ["run_id", "nope"] }, "query")).toEqual([
      { type: "enum", loc: ["query", "select", 1], msg: "Input should be 'run_id', 'status' or 'metadata'", input: "nope" },
    ]);
    // Without commas, a comma-joined value is one name, as FastAPI reads a list item.
    expect(errorsFor(Query, { select: "run_id,status" }, "query")[0]).toMatchObject({ type: "enum", loc: ["query", "select", 0] });
  });
});

describe("float", () => {
  const Body = z.object({ minutes: optionalField(float()) });

  it("takes any JSON number and refuses the rest as float_type", () => {
    expect(Body.parse({ minutes: 1.5 })).toEqual({ minutes: 1.5 });
    expect(Body.parse({ minutes: 2 })).toEqual({ minutes: 2 });
    expect(errorsFor(Body, { minutes: "x" })).toEqual([{ type: "float_type", loc: ["body", "minutes"], msg: "Input should be a valid number", input: "x" }]);
  });
});

describe("optional fields and bodies", () => {
  it("read null as absent, and no body as {}", () => {
    const Body = optionalBody(z.object({ name: optionalField(z.string()) }));
    expect(Body.parse(undefined)).toEqual({});
    expect(Body.parse({ name: null })).toEqual({ name: undefined });
    expect(errorsFor(Body, { name: 5 })).toEqual([{ type: "string_type", loc: ["body", "name"], msg: "Input should be a valid string", input: 5 }]);
  });
});

describe("notEmulated", () => {
  const Body = z.object({ webhook: notEmulated("the emulator makes no outbound calls") });

  it("lets absent, null and empty lists through and refuses anything else as value_error", () => {
    for (const fine of [{}, { webhook: null }, { webhook: [] }]) expect(Body.safeParse(fine).success).toBe(true);
    expect(errorsFor(Body, { webhook: "https://example.com" })).toEqual([
      { type: "value_error", loc: ["body", "webhook"], msg: "Value error, the emulator makes no outbound calls", input: "https://example.com" },
    ]);
  });
});
