import { z } from "zod";

/**
 * A zod custom issue that the FastAPI translator renders as a failed pydantic validator: type
 * `value_error`, msg "Value error, <reason>", at `path` below the value's own `loc`.
 */
export function valueError(reason: string, path?: PropertyKey[]) {
  return { code: "custom" as const, message: `Value error, ${reason}`, params: { type: "value_error" }, ...(path ? { path } : {}) };
}

/**
 * A string schema that also runs a domain check: `check` answers why the value is refused, or
 * nothing. A refusal is a `value_error` at the value's own `loc`.
 *
 * @example
 * const MountPath = checkedString(checkMountPath, z.string().max(4096));
 */
export function checkedString(check: (value: string) => string | undefined, base: z.ZodString = z.string()) {
  return base.superRefine((value, ctx) => {
    const reason = check(value);
    if (reason !== undefined) ctx.addIssue(valueError(reason));
  });
}

/** Refuses the second and later items with the same key (`path` is where the key sits in an item). */
export function uniqueBy<T>(key: (item: T) => string, path: readonly PropertyKey[], what: string) {
  return (items: readonly T[], ctx: z.RefinementCtx) => {
    const seen = new Map<string, number>();
    items.forEach((item, index) => {
      const value = key(item);
      const first = seen.get(value);
      if (first === undefined) seen.set(value, index);
      else ctx.addIssue(valueError(`${what} '${value}' is already used by item ${first}`, [index, ...path]));
    });
  };
}

/**
 * A field the emulator does not implement, refused when set (`value_error`) because ignoring it
 * would do something other than what the client asked for. Absent, null or an empty list is fine.
 */
export const notEmulated = (reason: string) =>
  z
    .unknown()
    .superRefine((value, ctx) => {
      if (!(value === undefined || value === null || (Array.isArray(value) && value.length === 0))) ctx.addIssue(valueError(reason));
    })
    .optional();
