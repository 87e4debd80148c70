import type { ValidationError } from "../../src/http/fastapi-errors.ts";

/** The statuses a refusal with a message may have; 422 always carries validation errors. */
export type RefusalStatus = 400 | 403 | 404 | 409;

/**
 * What an emulator's store answers, across RPC or not: a value, or a refusal that `answer()`
 * renders as FastAPI does, `{"detail": "<message>"}` or, for 422, `{"detail": [errors]}`.
 * A value, because errors thrown across RPC lose their fields and values don't.
 */
export type Result<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly status: RefusalStatus; readonly detail: string }
  | { readonly ok: false; readonly status: 422; readonly detail: readonly ValidationError[] };

/** The refusing half of a {@link Result}. */
export type Refusal = Extract<Result<unknown>, { ok: false }>;

export const ok = <T>(value: T): Result<T> => ({ ok: true, value });

/** A refusal with a message a user can act on. */
export const refuse = (status: RefusalStatus, detail: string): Result<never> => ({ ok: false, status, detail });

/** A 422 the request itself did not show, found by a store (a context the graph refuses). */
export const invalid = (errors: readonly ValidationError[]): Result<never> => ({ ok: false, status: 422, detail: errors });
