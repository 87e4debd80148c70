import type { z } from "zod";

/** Where a value came from, as FastAPI writes the first element of `loc`. */
export type Location = "path" | "query" | "body" | "header";

/**
 * A value read from a request: JSON, or the text of a path, query or header. Typed shallowly
 * (`object` below the top) because Durable Object RPC refuses `unknown` and cannot follow a
 * recursive JSON type; the emulators' request bodies use the same type (emulators/shared/pydantic/json.ts).
 */
export type JsonValue = string | number | boolean | null | object;
export type JsonObject = { [key: string]: JsonValue };

/**
 * One entry of FastAPI's HTTPValidationError `detail` (pydantic v2 error shape): where
 * (`["body", "limits", "us", "count"]`), what, which kind, and what was sent (`input`) and the
 * rule's figures (`ctx`) when FastAPI writes them. JSON-typed, so it crosses RPC as it is.
 */
export interface ValidationError {
  readonly type: string;
  readonly loc: ReadonlyArray<string | number>;
  readonly msg: string;
  readonly input?: JsonValue;
  readonly ctx?: JsonObject;
}

/**
 * Translates zod issues into the errors FastAPI (pydantic v2) would have written for the same
 * input, so clients written against the real API read the emulator's 422s unchanged:
 * `{"type": "less_than_equal", "loc": ["query", "limit"], "msg": "Input should be less than or
 * equal to 500", "input": "501", "ctx": {"le": 500}}`.
 */
export function toValidationErrors(issues: readonly z.core.$ZodIssue[], location: Location, input: unknown): ValidationError[] {
  return issues.flatMap((issue): ValidationError[] => {
    const loc = [location, ...issue.path.map((p) => (typeof p === "number" ? p : String(p)))];
    const value = valueAt(input, issue.path);
    if (issue.code === "unrecognized_keys") {
      return issue.keys.map((key) => ({
        type: "extra_forbidden",
        loc: [...loc, key],
        msg: "Extra inputs are not permitted",
        ...quoted(valueAt(value, [key])),
      }));
    }
    // Keys in FastAPI's order: type, loc, msg, input, ctx.
    const { type, msg, ctx } = describe(issue, location, value);
    return [{ type, loc, msg, ...quoted(value), ...(ctx ? { ctx } : {}) }];
  });
}

function describe(issue: z.core.$ZodIssue, location: Location, value: unknown): Omit<ValidationError, "loc" | "input"> {
  const fromText = location !== "body"; // path and query values arrive as strings
  // Whatever zod calls it (invalid_type, or invalid_value for a literal/enum), pydantic reports an
  // absent required field as `missing`.
  if (value === undefined && issue.code !== "custom") return { type: "missing", msg: "Field required" };
  switch (issue.code) {
    case "invalid_type":
      switch (issue.expected) {
        case "int":
        case "number":
          // A JSON number with a fractional part, where an integer is expected.
          if (!fromText && typeof value === "number")
            return { type: "int_from_float", msg: "Input should be a valid integer, got a number with a fractional part" };
          return fromText
            ? { type: "int_parsing", msg: "Input should be a valid integer, unable to parse string as an integer" }
            : { type: "int_type", msg: "Input should be a valid integer" };
        case "boolean":
          return fromText
            ? { type: "bool_parsing", msg: "Input should be a valid boolean, unable to interpret input" }
            : { type: "bool_type", msg: "Input should be a valid boolean" };
        case "string":
          return { type: "string_type", msg: "Input should be a valid string" };
        case "object":
        case "record":
          return { type: "dict_type", msg: "Input should be a valid dictionary" };
        case "array":
          return { type: "list_type", msg: "Input should be a valid list" };
        default:
          return { type: `${issue.expected}_type`, msg: `Input should be a valid ${issue.expected}` };
      }
    case "too_small":
      return bound(issue.origin, issue.minimum, issue.inclusive ?? true, "min");
    case "too_big":
      return bound(issue.origin, issue.maximum, issue.inclusive ?? true, "max");
    case "invalid_format":
      if (issue.format === "uuid" || issue.format === "guid") {
        return { type: "uuid_parsing", msg: "Input should be a valid UUID, invalid character or length" };
      }
      if (issue.format === "datetime") return { type: "datetime_from_date_parsing", msg: "Input should be a valid datetime" };
      return { type: "string_pattern_mismatch", msg: `String should match pattern '${"pattern" in issue ? String(issue.pattern) : issue.format}'` };
    case "invalid_value": {
      const expected = issue.values.map((v) => `'${String(v)}'`);
      const text = expected.length > 1 ? `${expected.slice(0, -1).join(", ")} or ${expected.at(-1)}` : (expected[0] ?? "");
      return issue.values.length === 1
        ? { type: "literal_error", msg: `Input should be ${text}`, ctx: { expected: text } }
        : { type: "enum", msg: `Input should be ${text}`, ctx: { expected: text } };
    }
    case "invalid_union":
      return { type: "union_tag_invalid", msg: issue.message };
    case "custom": {
      const params = (issue.params ?? {}) as { type?: string };
      return { type: params.type ?? "value_error", msg: params.type ? issue.message : `Value error, ${issue.message}` };
    }
    default:
      return { type: "value_error", msg: `Value error, ${issue.message}` };
  }
}

function bound(origin: string, limit: number | bigint, inclusive: boolean, side: "min" | "max"): Omit<ValidationError, "loc" | "input"> {
  const n = Number(limit);
  if (origin === "string") {
    const unit = n === 1 ? "character" : "characters";
    return side === "min"
      ? { type: "string_too_short", msg: `String should have at least ${n} ${unit}`, ctx: { min_length: n } }
      : { type: "string_too_long", msg: `String should have at most ${n} ${unit}`, ctx: { max_length: n } };
  }
  if (origin === "array" || origin === "set") {
    const unit = n === 1 ? "item" : "items";
    return side === "min"
      ? { type: "too_short", msg: `List should have at least ${n} ${unit} after validation`, ctx: { min_length: n } }
      : { type: "too_long", msg: `List should have at most ${n} ${unit} after validation`, ctx: { max_length: n } };
  }
  if (side === "min") {
    return inclusive
      ? { type: "greater_than_equal", msg: `Input should be greater than or equal to ${n}`, ctx: { ge: n } }
      : { type: "greater_than", msg: `Input should be greater than ${n}`, ctx: { gt: n } };
  }
  return inclusive
    ? { type: "less_than_equal", msg: `Input should be less than or equal to ${n}`, ctx: { le: n } }
    : { type: "less_than", msg: `Input should be less than ${n}`, ctx: { lt: n } };
}

/** The `input` an error quotes: the value sent, left out when nothing was (a missing field). */
function quoted(value: unknown): { input?: JsonValue } {
  // Request values come from JSON.parse or are text: JSON by construction.
  return value === undefined ? {} : { input: value as JsonValue };
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let value = input;
  for (const key of path) {
    if (value === null || typeof value !== "object") return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}
