/**
 * The deepest nesting (arrays and objects open at once) a JSON request body may have: CPython's
 * default recursion limit, as the real FastAPI servers parse bodies with CPython's `json`, which
 * recurses once per level and fails with RecursionError beyond it.
 *
 * The gateway holds a socket's command frames to the same bound (socket-frames.ts).
 *
 * Safe end to end, with room to spare: the emulators' body-reading tests
 * (test/workers/{agent-server,control-plane}/body-reading.test.ts) store, read
 * back and search bodies at exactly this depth, as the first requests of a fresh isolate (cold,
 * when V8 runs unoptimized code with its larger stack frames). How far past it the emulators
 * overflow, measured: docs/emulators.md, "Body size and depth".
 */
export const MAX_JSON_DEPTH = 1000;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;

/**
 * Whether `text` opens more than `limit` arrays or objects at once. One pass, no recursion and no
 * allocation, so it is safe on any input, including text that is not JSON at all (brackets inside
 * strings are skipped; unbalanced brackets are counted conservatively and left for JSON.parse to
 * report).
 *
 * @example
 * nestsDeeperThan('{"a": [[1]]}', 2) // true: depth 3
 * nestsDeeperThan('{"a": "[[[["}', 1) // false: brackets in a string do not nest
 */
export function nestsDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (inString) {
      if (code === BACKSLASH)
        i++; // the escaped character cannot end the string
      else if (code === QUOTE) inString = false;
    } else if (code === QUOTE) {
      inString = true;
    } else if (code === OPEN_ARRAY || code === OPEN_OBJECT) {
      if (++depth > limit) return true;
    } else if ((code === CLOSE_ARRAY || code === CLOSE_OBJECT) && depth > 0) {
      depth--; // never below zero: stray closers must not earn credit for deeper openers after them
    }
  }
  return false;
}
