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
