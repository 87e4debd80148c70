// The one way tollgate's commands read their arguments (explain, loadtest): node:util's parseArgs,
// every refusal a BadArgument whose message names the option, printed as one line that says how
// to get help, never buried under the usage text.
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
export function commandOptions<T extends { readonly help?: boolean }>(tool: string, parse: (argv: readonly string[]) => T, usage: string, argv: readonly string[] = process.argv.slice(2)): T {
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
