/**
 * What a store method answers across RPC: a value, or a refusal the route turns into FastAPI's
 * `{"detail": "..."}` with that status. (Errors thrown across RPC lose their fields; values don't.)
 */
export type StoreResult<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly status: 400 | 403 | 404 | 409 | 422; readonly detail: string };

export const ok = <T>(value: T): StoreResult<T> => ({ ok: true, value });
export const refuse = (status: 400 | 403 | 404 | 409 | 422, detail: string): StoreResult<never> => ({ ok: false, status, detail });

/** A page of a listing: `offset` is the one to send for the next page; an empty page ends it. */
export interface Page<T> {
  readonly items: readonly T[];
  readonly offset: number;
}
export const page = <T>(items: readonly T[], offset: number): Page<T> => ({ items, offset: offset + items.length });
