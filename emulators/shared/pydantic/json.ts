import { z } from "zod";
import type { JsonObject, JsonValue } from "../../../src/http/fastapi-errors.ts";

/**
 * JSON values: what request bodies hold and what crosses RPC to a Durable Object, typed where the
 * validation errors that quote them are (shallowly: RPC's types refuse `unknown` and cannot follow
 * a recursive JSON type); the values themselves always come from JSON.parse.
 */
export type { JsonObject, JsonValue };

// The schemas below check the top level only. What is inside came from JSON.parse, so it is JSON
// already; `z.json()` would check it again recursively, several stack frames per level, which is
// what overflowed the stack on deeply nested bodies (a 500). Not recursing keeps every body the
// body reader admits (MAX_JSON_DEPTH, ../json-depth.ts) far from that limit.

/** A JSON object field (`metadata`, `context`): pydantic's `dict`, `dict_type` otherwise. */
export const JsonObjectSchema = z.record(z.string(), z.unknown()) as unknown as z.ZodType<JsonObject>;

/** Any JSON value (a run's `input`). */
export const JsonValueSchema = z.unknown() as unknown as z.ZodType<JsonValue>;
