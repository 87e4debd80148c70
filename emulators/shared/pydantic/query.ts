import { z } from "zod";
import { MAX_JSON_DEPTH, nestsDeeperThan } from "../json-depth.ts";

/**
 * A query integer read as pydantic reads one: optional sign and digits, surrounding blanks
 * allowed (`0x10`, `1e2`, `1.5` and the empty string are `int_parsing`, not numbers JavaScript
 * happens to accept). Values beyond the safe range are clamped, which keeps the bound error
 * (`less_than_equal 500`) the only one.
 *
 * @example
 * queryInteger(z.int().min(1).max(500)).default(500)
 */
export const queryInteger = <S extends z.ZodType<number>>(schema: S) =>
  z.preprocess((value) => {
    if (typeof value !== "string" || !/^\s*[+-]?\d+\s*$/.test(value)) return value;
    return Math.max(-Number.MAX_SAFE_INTEGER, Math.min(Number.MAX_SAFE_INTEGER, Number(value)));
  }, schema);

const TRUE = ["true", "1", "yes", "on", "t", "y"];
const FALSE = ["false", "0", "no", "off", "f", "n"];

/** A query word read as pydantic reads a bool, or a `bool_parsing` issue. */
const readBoolean = (text: string, ctx: z.RefinementCtx): boolean => {
  const word = text.toLowerCase();
  if (TRUE.includes(word)) return true;
  if (FALSE.includes(word)) return false;
  ctx.addIssue({ code: "custom", message: "Input should be a valid boolean, unable to interpret input", params: { type: "bool_parsing" } });
  return z.NEVER;
};

/**
 * A query boolean as pydantic reads one (`true`/`false`, `1`/`0`, `yes`/`no`, `on`/`off`,
 * `t`/`f`, `y`/`n`, any case); anything else is `bool_parsing`. Absent is `false` (`bool = False`).
 */
export const queryBoolean = () =>
  z
    .string()
    .optional()
    .transform((text, ctx) => (text === undefined ? false : readBoolean(text, ctx)));

/**
 * A filter's query boolean (`Optional[bool] = None`): read as {@link queryBoolean} reads one, but
 * absent is `undefined`, "do not filter", not `false`.
 */
export const queryOptionalBoolean = () =>
  z
    .string()
    .optional()
    .transform((text, ctx) => (text === undefined ? undefined : readBoolean(text, ctx)));

/**
 * A list query parameter as FastAPI reads `List[X] = Query(...)`: the parameter repeated
 * (`?id=a&id=b`), one occurrence being a one-item list; each item validated by `item` and reported
 * at `["query", name, index]`. A comma-joined value is one item, as FastAPI reads it.
 *
 * @example
 * z.object({ deployment_ids: queryList(uuid(), { maxItems: 100 }) })
 */
export const queryList = <S extends z.ZodType>(item: S, { maxItems }: { maxItems?: number } = {}) =>
  z.preprocess((value) => (typeof value === "string" ? [value] : value), maxItems === undefined ? z.array(item) : z.array(item).max(maxItems));

/**
 * A query integer that must be one of a few values, as pydantic reads `Literal[0, 1]`: anything
 * else (a word, another number) is `literal_error` ("Input should be 0 or 1").
 *
 * @example
 * z.object({ check_db: queryIntegerChoice([0, 1]).default(0) })
 */
export const queryIntegerChoice = <const V extends readonly number[]>(values: V) =>
  z
    .string()
    .transform((text, ctx): V[number] => {
      const value = /^\s*[+-]?\d+\s*$/.test(text) ? Number(text) : Number.NaN;
      if (values.includes(value)) return value as V[number];
      const shown = values.map(String);
      const expected = shown.length > 1 ? `${shown.slice(0, -1).join(", ")} or ${shown.at(-1)}` : (shown[0] ?? "");
      ctx.addIssue({ code: "custom", message: `Input should be ${expected}`, params: { type: "literal_error" } });
      return z.NEVER;
    })
    .optional();

/**
 * A query list of names from a fixed set, read every way the official clients send one: the
 * parameter repeated (`?select=a&select=b`, as FastAPI reads `List[...]`), one JSON list
 * (`?select=["a","b"]`, the JS client's encoding of arrays), or, with `commas`, one
 * comma-separated value. A name outside the set is FastAPI's `enum` error at its index. Absent
 * is undefined.
 *
 * @example
 * z.object({ select: queryChoices(["run_id", "status"]) })
 */
export const queryChoices = <const C extends readonly [string, ...string[]]>(choices: C, { commas = false }: { commas?: boolean } = {}) =>
  z
    .union([z.string(), z.array(z.string())])
    .optional()
    .transform((value, ctx): C[number][] | undefined => {
      if (value === undefined) return undefined;
      const items = Array.isArray(value) ? value : splitList(value, commas);
      const quoted = choices.map((choice) => `'${choice}'`);
      const expected = quoted.length > 1 ? `${quoted.slice(0, -1).join(", ")} or ${quoted.at(-1)}` : quoted[0]!;
      items.forEach((item, index) => {
        if (!choices.includes(item))
          ctx.addIssue({ code: "custom", path: [index], message: `Input should be ${expected}`, params: { type: "enum" }, input: item });
      });
      return items as C[number][];
    });

/** One query value as a list: a JSON list of strings, else (with `commas`) split at commas, else itself. */
function splitList(text: string, commas: boolean): string[] {
  // Bounded as bodies are (json-depth.ts): String() of a list nested thousands deep overflows the stack.
  if (text.startsWith("[") && !nestsDeeperThan(text, MAX_JSON_DEPTH)) {
    try {
      const parsed: unknown = JSON.parse(text);
      if (Array.isArray(parsed)) return parsed.map(String);
    } catch {
      // Not JSON: read as names.
    }
  }
  if (text === "") return [];
  return commas ? text.split(",").map((name) => name.trim()) : [text];
}
