// Pure: which lines of `wrangler dev`'s output npm start passes on. Dropped: what only restates
// this repository's wrangler.toml (the bindings table), and what names the private port behind
// the local edge ("Ready on http://127.0.0.1:<private>"), which would send users around the edge.
// Kept: the gateway's own logs, request lines, reloads, warnings and errors (npm start gives
// wrangler nothing to warn about at start: local-config.ts).

const ANSI = /\x1b\[[0-9;]*m/g;

export class WranglerOutputFilter {
  #inBindings = false;
  readonly #privatePort: number;

  constructor(privatePort: number) {
    this.#privatePort = privatePort;
  }

  /** True when `line` (without its newline) should be shown. */
  keep(line: string): boolean {
    const raw = line.replace(ANSI, "");
    const text = raw.trim();
    // One table per Worker of the session ("Your Worker" when it is alone, else its name), each
    // ending with a blank line; wrangler's paragraph about connection status follows the last.
    if (/has access to the following bindings:?$/.test(text)) {
      this.#inBindings = true;
      return false;
    }
    if (text.startsWith("Service bindings, Durable Object bindings")) {
      this.#inBindings = false;
      return false;
    }
    if (this.#inBindings) {
      if (text === "") this.#inBindings = false;
      return false;
    }
    if (text.includes(`Ready on http://127.0.0.1:${this.#privatePort}`)) return false;
    if (text === "⎔ Starting local server...") return false;
    return true;
  }
}
