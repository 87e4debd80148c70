import { z } from "zod";
import { optionalField } from "./optional.ts";
import { queryInteger } from "./query.ts";

/** An API's paging bounds: `limit` from 1 to `maxLimit` (default `defaultLimit`), `offset` from 0. */
export interface PagingBounds {
  readonly maxLimit: number;
  readonly defaultLimit: number;
}

/**
 * `?limit=&offset=` as pydantic reads them (see `queryInteger`), with the API's bounds.
 *
 * @example
 * const ListenerListQuery = z.object(queryPaging({ maxLimit: 100, defaultLimit: 20 }));
 */
export const queryPaging = ({ maxLimit, defaultLimit }: PagingBounds) => ({
  limit: queryInteger(z.int().min(1).max(maxLimit)).default(defaultLimit),
  offset: queryInteger(z.int().min(0)).default(0),
});

/** `{"limit": ..., "offset": ...}` in a JSON body; absent or null takes the default. */
export const bodyPaging = ({ maxLimit, defaultLimit }: PagingBounds) => ({
  limit: optionalField(z.int().min(1).max(maxLimit)).transform((limit) => limit ?? defaultLimit),
  offset: optionalField(z.int().min(0)).transform((offset) => offset ?? 0),
});
