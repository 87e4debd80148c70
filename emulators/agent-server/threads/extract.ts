/**
 * `extract` on POST /threads/search (the 2026 document): aliases for values inside each thread,
 * by a JSONB path such as `values.messages[-1]` or `metadata.user.name`. A path starts at one of
 * the thread's JSON columns; keys are separated by dots, list items picked by `[n]` (negative from
 * the end). A path that leads nowhere extracts null, as Postgres' `#>` gives NULL.
 */
export const EXTRACT_ROOTS = ["values", "metadata", "config", "interrupts"] as const;

/** At most this many aliases per search (the document's `maxProperties`). */
export const MAX_EXTRACTS = 10;

type Step = { readonly key: string } | { readonly index: number };

/** The steps of a path, or undefined when it is not one (no root column, an empty key, a bad index). */
export function parseExtractPath(path: string): Step[] | undefined {
  const steps: Step[] = [];
  for (const part of path.split(".")) {
    const match = /^([^[\]]+)((?:\[-?\d+\])*)$/.exec(part);
    if (!match) return undefined;
    steps.push({ key: match[1]! });
    for (const index of match[2]!.matchAll(/\[(-?\d+)\]/g)) steps.push({ index: Number(index[1]) });
  }
  const root = steps[0];
  return root && "key" in root && (EXTRACT_ROOTS as readonly string[]).includes(root.key) ? steps : undefined;
}

/** The value at `steps` inside `thread`, or null where the path leads nowhere. */
export function extractValue(thread: Readonly<Record<string, unknown>>, steps: readonly Step[]): unknown {
  let at: unknown = thread;
  for (const step of steps) {
    if ("key" in step) {
      at = at !== null && typeof at === "object" && !Array.isArray(at) ? (at as Record<string, unknown>)[step.key] : undefined;
    } else {
      at = Array.isArray(at) ? at.at(step.index) : undefined;
    }
    if (at === undefined) return null;
  }
  return at;
}
