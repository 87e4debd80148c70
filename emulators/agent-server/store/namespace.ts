/**
 * Store namespaces: tuples of labels, such as `["users", "u-1", "memories"]`. Stored as the labels
 * joined with ".", as the real server's Postgres store keeps them, which is why a label may hold no
 * "." (and may not be empty); listings are sorted by that joined text.
 */
export type Namespace = readonly string[];

/** Why a namespace cannot be used, as `[index of the bad label, reason]`, or undefined when it can. */
export function namespaceProblem(namespace: Namespace): [number, string] | undefined {
  const at = namespace.findIndex((label) => label === "" || label.includes("."));
  if (at < 0) return undefined;
  return [at, `Namespace label ${JSON.stringify(namespace[at])} must be a non-empty string without periods`];
}

export const joinNamespace = (namespace: Namespace): string => namespace.join(".");
export const splitNamespace = (text: string): string[] => text.split(".");

/** Whether `namespace` starts with `prefix`, label by label (`["a"]` is not a prefix of `["ab"]`). */
export function startsWith(namespace: Namespace, prefix: Namespace): boolean {
  return prefix.length <= namespace.length && prefix.every((label, i) => label === namespace[i]);
}

/**
 * Whether `namespace` starts with `prefix` and ends with `suffix`, where a `*` label in either
 * matches any one label (LangGraph's MatchCondition for listing namespaces).
 */
export function matchesListing(namespace: Namespace, prefix: Namespace | undefined, suffix: Namespace | undefined): boolean {
  const same = (pattern: string, label: string | undefined) => label !== undefined && (pattern === "*" || pattern === label);
  if (prefix && !prefix.every((pattern, i) => same(pattern, namespace[i]))) return false;
  if (suffix) {
    const start = namespace.length - suffix.length;
    if (start < 0 || !suffix.every((pattern, i) => same(pattern, namespace[start + i]))) return false;
  }
  return true;
}

/**
 * POST /store/namespaces: the distinct namespaces that match, each cut to `maxDepth` labels, sorted
 * by their joined text, one page.
 *
 * @example
 * listNamespaces([["a", "b", "c"], ["a", "b", "d"], ["x"]], { prefix: ["a"], maxDepth: 2, limit: 10, offset: 0 })
 * // [["a", "b"]]
 */
export function listNamespaces(
  namespaces: readonly Namespace[],
  query: {
    readonly prefix?: Namespace | undefined;
    readonly suffix?: Namespace | undefined;
    readonly maxDepth?: number | undefined;
    readonly limit: number;
    readonly offset: number;
  },
): string[][] {
  const found = new Map<string, string[]>();
  for (const namespace of namespaces) {
    if (!matchesListing(namespace, query.prefix, query.suffix)) continue;
    const cut = query.maxDepth === undefined ? [...namespace] : namespace.slice(0, query.maxDepth);
    found.set(joinNamespace(cut), cut);
  }
  return [...found.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .slice(query.offset, query.offset + query.limit)
    .map(([, namespace]) => namespace);
}
