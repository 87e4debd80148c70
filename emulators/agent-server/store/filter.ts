/**
 * The `filter` of POST /store/items/search, as LangGraph's stores apply it to an item's value:
 * each key names a field of the value; a plain value must equal the field (objects compared field
 * by field, lists item by item); an object of operators (`$eq`, `$ne`, `$gt`, `$gte`, `$lt`,
 * `$lte`) must hold for the field. Comparisons are JSON's (as Postgres' jsonb compares), so
 * `true` does not equal `1`.
 *
 * @example
 * matchesFilter({ author: "ann", stars: 4 }, { author: "ann", stars: { $gte: 3 } }) // true
 */
export function matchesFilter(value: Record<string, unknown>, filter: Record<string, unknown>): boolean {
  return Object.entries(filter).every(([key, expected]) => compareValues(value[key], expected));
}

export const OPERATORS = ["$eq", "$ne", "$gt", "$gte", "$lt", "$lte"] as const;

/** The first operator in `filter` that is not one of {@link OPERATORS}, and the path to it. */
export function unknownOperator(filter: Record<string, unknown>): { path: string[]; operator: string } | undefined {
  for (const [key, expected] of Object.entries(filter)) {
    if (!isObject(expected)) continue;
    const operator = Object.keys(expected).find((k) => k.startsWith("$") && !(OPERATORS as readonly string[]).includes(k));
    if (operator) return { path: [key, operator], operator };
    const nested = unknownOperator(expected);
    if (nested) return { path: [key, ...nested.path], operator: nested.operator };
  }
  return undefined;
}

function compareValues(actual: unknown, expected: unknown): boolean {
  if (isObject(expected)) {
    const keys = Object.keys(expected);
    if (keys.some((k) => k.startsWith("$"))) return keys.every((op) => applyOperator(actual, op, expected[op]));
    if (!isObject(actual)) return false;
    return keys.every((k) => compareValues(actual[k], expected[k]));
  }
  if (Array.isArray(expected)) {
    return Array.isArray(actual) && actual.length === expected.length && expected.every((item, i) => compareValues(actual[i], item));
  }
  return jsonEqual(actual, expected);
}

function applyOperator(actual: unknown, operator: string, operand: unknown): boolean {
  switch (operator) {
    case "$eq":
      return jsonEqual(actual, operand);
    case "$ne":
      return !jsonEqual(actual, operand);
    default: {
      // Ordering compares numbers; a field that is not a number (or is absent) never matches.
      if (typeof actual !== "number" || typeof operand !== "number") return false;
      if (operator === "$gt") return actual > operand;
      if (operator === "$gte") return actual >= operand;
      if (operator === "$lt") return actual < operand;
      return actual <= operand;
    }
  }
}

function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((item, i) => jsonEqual(item, b[i]));
  if (isObject(a) && isObject(b)) {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((k) => k in b && jsonEqual(a[k], b[k]));
  }
  return false;
}

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === "object" && !Array.isArray(value);
