import { z } from "zod";

/**
 * JSON values: what request bodies hold and what crosses RPC to the state object. Typed
 * shallowly (`object` below the top) because RPC's types refuse `unknown` and cannot follow a
 * recursive JSON type ("excessively deep"); the values themselves always come from JSON.parse.
 */
export type JsonValue = string | number | boolean | null | object;
export type JsonObject = { [key: string]: JsonValue };

/** An optional request field; `null` (as Python clients send for unset fields) means absent too. */
export const optionalField = <S extends z.ZodType>(schema: S) => schema.nullish().transform((value) => value ?? undefined);

// The schemas below check the top level only. What is inside came from JSON.parse, so it is JSON
// already; `z.json()` would check it again recursively, several stack frames per level, which is
// what overflowed the stack on deeply nested bodies (a 500). Not recursing keeps every body the
// body reader admits (MAX_JSON_DEPTH, src/emulators/shared/json-depth.ts) far from that limit.

/** A JSON object field (`config`, `context`, `metadata`): pydantic's `dict`. */
export const JsonObjectSchema = z.record(z.string(), z.unknown()) as unknown as z.ZodType<JsonObject>;

/** Any JSON value (a run's `input`). */
export const JsonValueSchema = z.unknown() as unknown as z.ZodType<JsonValue>;

/**
 * A request body whose fields are all optional: no body at all reads as `{}` (so `curl -X POST
 * .../threads` works), while a body that is present is validated as usual.
 */
export const optionalBody = <S extends z.ZodType>(schema: S) => z.preprocess((value) => (value === undefined ? {} : value), schema);
