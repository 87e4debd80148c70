// The one way tollgate's commands (tools/ and bench/) read their arguments: node:util's parseArgs,
// every refusal a BadArgument whose message starts with the option it refuses, printed as one line
// that says how to get help, never buried under the usage text. The readers below give every
// command the same words for the same mistake.
import { parseArgs, type ParseArgsConfig } from "node:util";

/** A refused argument; the message starts with the option (or operand) it refuses. */
export class BadArgument extends Error {
  override name = "BadArgument";
}

/**
 * parseArgs, strict, with its errors turned into BadArgument ("Unknown option '--foo'" and the
 * like keep only their first line).
 */
export function parseOptions<O extends NonNullable<ParseArgsConfig["options"]>>(argv: readonly string[], options: O, allowPositionals = false) {
  try {
    return parseArgs({ args: [...argv], options, allowPositionals, strict: true });
  } catch (error) {
    throw new BadArgument((error as Error).message.split("\n")[0]!);
  }
}

/** The one line a refused argument prints: what is wrong, and where the options are explained. */
export function refusal(tool: string, error: BadArgument): string {
  return `${tool}: ${error.message} (npm run ${tool} -- --help lists every option)`;
}

/**
 * The options of a command run from the shell: `parse(argv)`, the usage text printed and the
 * process ended (0) on `--help`, a refused argument printed as its one line and the process ended
 * (2). Anything else `parse` throws is a bug and propagates.
 */
export function commandOptions<T extends { readonly help?: boolean }>(
  tool: string,
  parse: (argv: readonly string[]) => T,
  usage: string,
  argv: readonly string[] = process.argv.slice(2),
): T {
  let options: T;
  try {
    options = parse(argv);
  } catch (error) {
    if (!(error instanceof BadArgument)) throw error;
    console.error(refusal(tool, error));
    process.exit(2);
  }
  if (options.help) {
    console.log(usage);
    process.exit(0);
  }
  return options;
}

/** Bounds of a number option; without `min`, the value must be above `above` (default 0). */
export interface NumberBounds {
  readonly integer?: boolean;
  readonly min?: number;
  readonly max?: number;
  readonly above?: number;
}

/** A count of things: requests, rounds, connections. */
export const WHOLE_FROM_1: NumberBounds = { integer: true, min: 1 };

/**
 * A number option: `fallback` when absent, else the value checked against its bounds.
 * @throws BadArgument "--name: ..." saying which bound it breaks
 */
export function numberOption(name: string, raw: string | undefined, fallback: number, bounds: NumberBounds = {}): number {
  if (raw === undefined) return fallback;
  const value = Number(raw);
  const { integer = false, min, max, above = 0 } = bounds;
  if (raw.trim() === "" || !Number.isFinite(value)) throw new BadArgument(`--${name}: "${raw}" is not a number`);
  if (integer && !Number.isInteger(value)) throw new BadArgument(`--${name}: "${raw}" must be a whole number`);
  if (min !== undefined ? value < min : !(value > above))
    throw new BadArgument(`--${name}: must be ${min !== undefined ? `at least ${min}` : `greater than ${above}`} (got ${raw})`);
  if (max !== undefined && value > max) throw new BadArgument(`--${name}: must be at most ${max} (got ${raw})`);
  return value;
}

/**
 * One of a fixed set of words: `fallback` when absent.
 * @throws BadArgument "--name: must be one of a, b (got "c")"
 */
export function choiceOption<C extends string>(name: string, raw: string | undefined, fallback: C, choices: readonly C[]): C {
  const value = raw ?? fallback;
  if (!(choices as readonly string[]).includes(value)) throw new BadArgument(`--${name}: must be one of ${choices.join(", ")} (got "${value}")`);
  return value as C;
}

/**
 * A file to write: absent is undefined, an empty name is refused.
 * @throws BadArgument "--name: needs a file name"
 */
export function fileOption(name: string, raw: string | undefined): string | undefined {
  if (raw !== undefined && raw.trim() === "") throw new BadArgument(`--${name}: needs a file name`);
  return raw;
}

/** What a numbered list option calls its numbers, and which numbers exist. */
export interface NumberedList {
  /** "row number", "shape number (1-6)": what a part that is neither number nor range is not. */
  readonly noun: string;
  /** A range of the list's own numbers, for the same message: "1-5". */
  readonly example: string;
  /** Why `n` is refused (it is no member), or undefined when it is one. */
  readonly unknown: (n: number) => string | undefined;
}

/**
 * "12,28", "1-5,9" -> the numbers named, sorted and distinct.
 * @throws BadArgument "--name: ..." naming the part it refuses
 */
export function numberedList(name: string, raw: string, list: NumberedList): number[] {
  const out = new Set<number>();
  for (const part of raw.split(",").map((p) => p.trim())) {
    const m = /^(\d+)(?:-(\d+))?$/.exec(part);
    if (!m) throw new BadArgument(`--${name}: "${part}" is not a ${list.noun}, a range like ${list.example}, or all`);
    const from = Number(m[1]);
    const to = m[2] === undefined ? from : Number(m[2]);
    if (to < from) throw new BadArgument(`--${name}: range "${part}" runs backwards`);
    for (let n = from; n <= to; n++) {
      const why = list.unknown(n);
      if (why !== undefined) throw new BadArgument(`--${name}: ${why}`);
      out.add(n);
    }
  }
  return [...out].sort((a, b) => a - b);
}
