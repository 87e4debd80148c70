import type { ValidationError } from "../shared/fastapi-errors.ts";
import type { JsonObject, JsonValue } from "./json.ts";

/** A FastAPI validation error typed for RPC (its `input` and `ctx` are JSON). */
export type WireValidationError = Omit<ValidationError, "input" | "ctx"> & { readonly input?: JsonValue; readonly ctx?: JsonObject };

/**
 * What a store method answers across RPC: a value, or a refusal the route renders as FastAPI
 * does: `{"detail": "<message>"}` for 404/409, `{"detail": [ValidationError...]}` for 422.
 * (Errors thrown across RPC lose their fields; values don't.)
 */
export type Outcome<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly status: 404 | 409; readonly detail: string }
  | { readonly ok: false; readonly status: 422; readonly detail: readonly WireValidationError[] };

export const ok = <T>(value: T): Outcome<T> => ({ ok: true, value });
export const refuse = (status: 404 | 409, detail: string): Outcome<never> => ({ ok: false, status, detail });
// Validation errors describe request JSON, so their `input` and `ctx` are JSON too.
export const invalid = (errors: readonly ValidationError[]): Outcome<never> => ({ ok: false, status: 422, detail: errors as readonly WireValidationError[] });
