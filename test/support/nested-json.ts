/**
 * JSON text of a value nested exactly `depth` levels (arrays and objects open at once), built
 * iteratively so any depth is cheap. Levels alternate object and array, the outermost an object,
 * so both kinds of recursion are exercised: nestedJson(3) is `{"n":[{"n":"leaf"}]}`.
 */
export function nestedJson(depth: number, leaf = '"leaf"'): string {
  let open = "";
  let close = "";
  for (let level = 0; level < depth; level++) {
    const object = level % 2 === 0;
    open += object ? '{"n":' : "[";
    close = (object ? "}" : "]") + close;
  }
  return open + leaf + close;
}

/**
 * A body of exactly `depth` levels, `{ ...fields, [field]: <value nested depth - 1 levels> }`, with
 * a unique innermost value, so a search matches only this test's assistant.
 */
export function bodyAt(depth: number, field: string, fields: Record<string, unknown> = {}) {
  const value = nestedJson(depth - 1, JSON.stringify(crypto.randomUUID()));
  const prefix = JSON.stringify(fields).slice(0, -1);
  return { text: `${prefix}${prefix === "{" ? "" : ","}${JSON.stringify(field)}:${value}}`, value };
}

/** Arrays and objects open at once in a parsed value, counted without recursion. */
export function depthOf(root: unknown): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[root, 0]];
  while (stack.length > 0) {
    const [value, depth] = stack.pop()!;
    if (value === null || typeof value !== "object") continue;
    deepest = Math.max(deepest, depth + 1);
    for (const child of Object.values(value)) stack.push([child, depth + 1]);
  }
  return deepest;
}
