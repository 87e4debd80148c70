import { z } from "zod";

/**
 * An optional request field as pydantic's `Optional[X] = None` reads it: absent or `null` (what
 * Python clients send for unset fields) both mean absent.
 */
export const optionalField = <S extends z.ZodType>(schema: S) => schema.nullish().transform((value) => value ?? undefined);

/**
 * A request body whose fields are all optional: no body at all reads as `{}` (so `curl -X POST
 * .../threads` works), while a body that is present is validated as usual.
 */
export const optionalBody = <S extends z.ZodType>(schema: S) => z.preprocess((value) => (value === undefined ? {} : value), schema);
