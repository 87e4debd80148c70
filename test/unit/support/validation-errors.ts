import type { z } from "zod";
import { toValidationErrors, type Location } from "../../../src/http/fastapi-errors.ts";

/** Validates `input` against `schema` and returns what a 422's `detail` would carry; throws if it passes. */
export function errorsFor(schema: z.ZodType, input: unknown, location: Location = "body") {
  const result = schema.safeParse(input);
  if (result.success) throw new Error(`expected a validation failure, got ${JSON.stringify(result.data)}`);
  return toValidationErrors(result.error.issues, location, input);
}
